import type { SessionErrorCode } from './types.js';

/** The error class of the session stores; branch on `code`. */
export class SessionError extends Error {
  readonly code: SessionErrorCode;

  constructor(code: SessionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SessionError';
    this.code = code;
  }
}
