/**
 * Codes of SourcesError (docs/sources.md, "What each failure looks like"): FETCH_FAILED, the source could not
 * be fetched (git or HTTP said why); TIMEOUT, a fetch ran past `sources.fetch_timeout_seconds`; TOO_LARGE, over
 * the byte or file caps; SHA256_MISMATCH, an archive's bytes are not the configured sha256; UNSAFE_ARCHIVE, an
 * archive entry is absolute, climbs out with `..`, or is a link, device or FIFO; PATH_MISSING, the source's
 * `path` is not a folder at that commit; DIGEST_MISMATCH, the content is not what the lock pins;
 * LOCK_INVALID, the lock file is unreadable or malformed; NOT_LOCKED, `sources sync` found a source the lock
 * does not pin; TOKEN_MISSING, `token_env` names an unset variable; CACHE_UNSAFE, another local user could
 * write the cache folder.
 */
export type SourcesErrorCode =
  | 'FETCH_FAILED'
  | 'TIMEOUT'
  | 'TOO_LARGE'
  | 'SHA256_MISMATCH'
  | 'UNSAFE_ARCHIVE'
  | 'PATH_MISSING'
  | 'DIGEST_MISMATCH'
  | 'LOCK_INVALID'
  | 'NOT_LOCKED'
  | 'TOKEN_MISSING'
  | 'CACHE_UNSAFE';

/** The one error class of the sources package; `source` names the source it is about, when one is. */
export class SourcesError extends Error {
  readonly code: SourcesErrorCode;
  readonly source: string | undefined;

  constructor(code: SourcesErrorCode, message: string, options: { source?: string; cause?: unknown } = {}) {
    super(options.source === undefined ? message : `source "${options.source}": ${message}`, {
      cause: options.cause,
    });
    this.name = 'SourcesError';
    this.code = code;
    this.source = options.source;
  }
}
