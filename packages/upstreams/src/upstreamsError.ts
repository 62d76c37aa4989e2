/**
 * Codes of UpstreamsError: ENV_NOT_SET, a variable the config names for a header or a stdio server's
 * environment is missing (the upstream stays down until a restart); RESPONSE_TOO_LARGE, an HTTP upstream's
 * response body is over the connection's byte bound.
 */
export type UpstreamsErrorCode = 'ENV_NOT_SET' | 'RESPONSE_TOO_LARGE';

/** The one error class of the upstreams package; branch on `code`. Callers of the pool never see it thrown. */
export class UpstreamsError extends Error {
  readonly code: UpstreamsErrorCode;

  constructor(code: UpstreamsErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpstreamsError';
    this.code = code;
  }
}
