/**
 * Codes of SkillsError: programming errors and file access (FILE_*, from the bounded file readers) throw;
 * skill problems are reported as Problems.
 */
export type SkillsErrorCode =
  | 'OPTION_INVALID'
  | 'FILE_NOT_REGULAR'
  | 'FILE_CHANGED'
  | 'FILE_TOO_LARGE'
  | 'FILE_UNREADABLE'
  | 'FILE_TIMEOUT'
  | 'FILE_BUSY';

/** The one error class of the skills package; branch on `code`. */
export class SkillsError extends Error {
  readonly code: SkillsErrorCode;

  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SkillsError';
    this.code = code;
  }
}
