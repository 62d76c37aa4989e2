import {
  AuthorizationResponseError,
  authorizationCodeGrant,
  buildAuthorizationUrl,
  type Configuration,
  calculatePKCECodeChallenge,
  clientCredentialsGrant,
  genericGrantRequest,
  ResponseBodyError,
  refreshTokenGrant,
  type TokenEndpointResponse,
  tokenRevocation,
  WWWAuthenticateChallengeError,
} from 'openid-client';
import { CredentialsError, type CredentialsErrorCode } from '../credentialsError.js';

/** RFC 8693's grant type and the token type of an OAuth access token. */
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** What a token request may add: scopes, an audience, an RFC 8707 resource. */
export interface TokenParameters {
  readonly scopes: readonly string[];
  readonly audience?: string;
  readonly resource?: string;
}

const parametersOf = (p: TokenParameters): Record<string, string> => ({
  ...(p.scopes.length === 0 ? {} : { scope: p.scopes.join(' ') }),
  ...(p.audience === undefined ? {} : { audience: p.audience }),
  ...(p.resource === undefined ? {} : { resource: p.resource }),
});

/**
 * An openid-client failure as a CredentialsError: an OAuth error answer (its `error` code only, never its
 * description, which some servers fill with the request) as `refused`, anything else (network, timeout, a
 * malformed answer) as PROVIDER_UNAVAILABLE.
 */
export function mapOAuthError(
  error: unknown,
  refused: CredentialsErrorCode,
  what: string,
  provider: string,
): CredentialsError {
  if (error instanceof CredentialsError) return error;
  if (error instanceof ResponseBodyError || error instanceof AuthorizationResponseError) {
    return new CredentialsError(refused, `${what} at ${provider} refused: ${error.error}`, { provider });
  }
  if (error instanceof WWWAuthenticateChallengeError) {
    // A 401 with a challenge: the client's own credentials were refused (invalid_client).
    const code = error.cause[0]?.parameters.error ?? `HTTP ${error.status}`;
    return new CredentialsError(refused, `${what} at ${provider} refused: ${code}`, { provider });
  }
  return new CredentialsError('PROVIDER_UNAVAILABLE', `${what} at ${provider} failed: ${describe(error)}`, {
    cause: error,
    provider,
  });
}

// openid-client's messages name the check that failed, never a value sent; the code alone is kept when present.
const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return 'unknown error';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code} (${error.message})` : error.message;
};

/** The OAuth `error` code of a refused request, if it was one. */
export const oauthErrorCode = (error: unknown): string | undefined =>
  error instanceof ResponseBodyError ? error.error : undefined;

/** A client-credentials token (the gateway's own identity). */
export function requestClientCredentials(
  config: Configuration,
  p: TokenParameters,
): Promise<TokenEndpointResponse> {
  return clientCredentialsGrant(config, parametersOf(p));
}

/** RFC 8693: the caller's access token as subject_token, for a token of the given audience. */
export function requestTokenExchange(
  config: Configuration,
  subjectToken: string,
  p: TokenParameters,
): Promise<TokenEndpointResponse> {
  return genericGrantRequest(config, TOKEN_EXCHANGE, {
    subject_token: subjectToken,
    subject_token_type: ACCESS_TOKEN_TYPE,
    requested_token_type: ACCESS_TOKEN_TYPE,
    ...parametersOf(p),
  });
}

/** The provider's authorization URL for a flow: PKCE S256, state, scopes and resource. */
export async function authorizationUrlOf(
  config: Configuration,
  options: {
    readonly redirectUri: string;
    readonly state: string;
    readonly verifier: string;
    readonly scopes: readonly string[];
    readonly resource?: string;
    readonly nonce?: string;
  },
): Promise<URL> {
  return buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    response_type: 'code',
    state: options.state,
    code_challenge: await calculatePKCECodeChallenge(options.verifier),
    code_challenge_method: 'S256',
    ...(options.scopes.length === 0 ? {} : { scope: options.scopes.join(' ') }),
    ...(options.resource === undefined ? {} : { resource: options.resource }),
    ...(options.nonce === undefined ? {} : { nonce: options.nonce }),
  });
}

/**
 * Redeems a callback: openid-client checks `state` and, where the server sends one (or its metadata says it
 * does), `iss`, then redeems the code with the PKCE verifier.
 */
export function redeemCallback(
  config: Configuration,
  callbackUrl: URL,
  checks: {
    readonly state: string;
    readonly verifier: string;
    readonly nonce?: string;
    readonly resource?: string;
  },
): Promise<TokenEndpointResponse & { claims(): Record<string, unknown> | undefined }> {
  return authorizationCodeGrant(
    config,
    callbackUrl,
    {
      expectedState: checks.state,
      pkceCodeVerifier: checks.verifier,
      ...(checks.nonce === undefined ? {} : { expectedNonce: checks.nonce }),
    },
    checks.resource === undefined ? undefined : { resource: checks.resource },
  );
}

/** A refresh-token grant (the resource asked for again, so the audience stays the same). */
export function requestRefresh(
  config: Configuration,
  refreshToken: string,
  resource: string | undefined,
): Promise<TokenEndpointResponse> {
  return refreshTokenGrant(config, refreshToken, resource === undefined ? undefined : { resource });
}

/** RFC 7009 revocation, if the server has an endpoint; true when one was asked. */
export async function revoke(
  config: Configuration,
  token: string,
  hint: 'access_token' | 'refresh_token',
): Promise<boolean> {
  if (config.serverMetadata().revocation_endpoint === undefined) return false;
  await tokenRevocation(config, token, { token_type_hint: hint });
  return true;
}
