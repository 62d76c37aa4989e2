import type { SkillsErrorCode } from './types.js';

/** The one error class of the skills package; branch on `code`. */
export class SkillsError extends Error {
  readonly code: SkillsErrorCode;

  constructor(code: SkillsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SkillsError';
    this.code = code;
  }
}
