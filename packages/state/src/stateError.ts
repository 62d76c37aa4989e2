import type { StateErrorCode } from './types.js';

/** The one error class of the state package; branch on `code`. */
export class StateError extends Error {
  readonly code: StateErrorCode;

  constructor(code: StateErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateError';
    this.code = code;
  }
}
