import type { RunnerErrorCode } from './types.js';

/** The one error class of the runner package; branch on `code`. */
export class RunnerError extends Error {
  readonly code: RunnerErrorCode;

  constructor(code: RunnerErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RunnerError';
    this.code = code;
  }
}
