/**
 * Codes of CredentialsError (docs/credentials.md, "Errors"):
 * - CONNECT_REQUIRED: the principal has no usable connection to the provider (never connected, refused refresh,
 *   disconnected); the answer is a connect link.
 * - REFRESH_REFUSED: the provider refused the refresh token (invalid_grant); the connection was deleted.
 * - EXCHANGE_FAILED: the token endpoint refused a token exchange or client-credentials request.
 * - STATIC_PRINCIPAL_DENIED: a token-exchange upstream called by a principal without an OAuth token
 *   (`static_principals: deny`).
 * - PROVIDER_UNAVAILABLE: a provider's metadata or token endpoint could not be reached or answered nonsense.
 * - INSECURE_ENDPOINT: an endpoint (configured or from metadata) is not https (loopback http aside).
 * - STORE_UNAVAILABLE: the file or Redis store could not be read or written.
 * - KEY_INVALID: a configured key is missing or is not 32 bytes of base64.
 * - ENV_NOT_SET: a variable the config names for a client id or secret is not set.
 * - FLOW_INVALID: a connect flow or callback that does not exist, expired, was used, or whose state does not match.
 * - FLOW_FORBIDDEN: a flow completed by another principal than the one it was made for (nothing changes).
 * - CALLBACK_REFUSED: the provider answered the authorization with an error, or the code could not be redeemed.
 * - REQUEST_STATE_INVALID: a 2026-07-28 requestState that was tampered with or not made by this gateway.
 * - REQUEST_STATE_EXPIRED: a requestState whose flow has expired.
 */
export type CredentialsErrorCode =
  | 'CONNECT_REQUIRED'
  | 'REFRESH_REFUSED'
  | 'EXCHANGE_FAILED'
  | 'STATIC_PRINCIPAL_DENIED'
  | 'PROVIDER_UNAVAILABLE'
  | 'INSECURE_ENDPOINT'
  | 'STORE_UNAVAILABLE'
  | 'KEY_INVALID'
  | 'ENV_NOT_SET'
  | 'FLOW_INVALID'
  | 'FLOW_FORBIDDEN'
  | 'CALLBACK_REFUSED'
  | 'REQUEST_STATE_INVALID'
  | 'REQUEST_STATE_EXPIRED';

/**
 * The one error class of the credentials package; branch on `code`. A message never holds a token, a secret,
 * a code or a key: only ids (provider, upstream, key id), codes and the provider's OAuth error code.
 */
export class CredentialsError extends Error {
  readonly code: CredentialsErrorCode;
  /** The provider (or upstream) the error is about, when there is one. */
  readonly provider: string | undefined;

  constructor(
    code: CredentialsErrorCode,
    message: string,
    options: { readonly cause?: unknown; readonly provider?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CredentialsError';
    this.code = code;
    this.provider = options.provider;
  }
}
