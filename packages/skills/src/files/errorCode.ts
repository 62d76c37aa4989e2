import { SkillsError } from '../skillsError.js';

/**
 * The `code` of a Node.js system error (ENOENT, EACCES, ...) or of a SkillsError, for short problem reasons.
 * A FILE_UNREADABLE from the bounded readers gives the system error under it.
 */
export function errorCode(error: unknown): string {
  if (error instanceof SkillsError && error.code === 'FILE_UNREADABLE' && error.cause !== undefined) {
    return errorCode(error.cause);
  }
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return error instanceof Error ? error.message : String(error);
}
