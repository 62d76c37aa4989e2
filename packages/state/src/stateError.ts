/** Stable codes of state failures. */
export type StateErrorCode =
  | 'STATE_UNAVAILABLE' // the shared store (Redis) is unreachable, or did not answer in time
  | 'STATE_FULL' // Redis refused a write: it reached its maxmemory (OOM)
  | 'STATE_INVALID' // a stored value failed validation (written by another version, or damaged)
  | 'STATE_CLOSED' // the store was closed
  | 'STATE_MISCONFIGURED' // state.backend is redis but its URL is missing or not a Redis URL
  | 'JOB_LIMIT' // the owner already runs the most jobs it may
  | 'JOB_NOT_FOUND'; // unknown or expired job id, or a job of another owner (the same answer, on purpose)

/** The one error class of the state package; branch on `code`. */
export class StateError extends Error {
  readonly code: StateErrorCode;

  constructor(code: StateErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StateError';
    this.code = code;
  }
}
