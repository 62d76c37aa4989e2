import { createHash } from 'node:crypto';
import type { ClientCredentialsSettings, TokenExchangeSettings } from '../settings.js';
import type { CredentialsEvent } from '../types.js';
import type { ClientConfigurations } from './clientConfigurations.js';
import { createTokenCache, renewAtOf } from './tokenCache.js';
import { mapOAuthError, requestClientCredentials, requestTokenExchange } from './tokenRequests.js';

/** Tokens the gateway asks for itself: client credentials, and RFC 8693 exchanges of callers' tokens. */
export interface GatewayTokens {
  /** The client-credentials token of `key` (an upstream, or its discovery), one request however many wait. */
  clientCredentials(key: string, client: ClientCredentialsSettings): Promise<string>;
  /** The caller's token exchanged for the upstream's, cached per principal and subject token. */
  exchanged(
    upstream: string,
    exchange: TokenExchangeSettings,
    principal: string,
    subject: string,
  ): Promise<string>;
  /** Drops a client-credentials token (if it is still `token`: a later one is kept). */
  dropClientCredentials(key: string, token?: string): void;
  /** Drops a principal's exchanged tokens for an upstream. */
  dropExchanged(upstream: string, principal: string): void;
}

/** Options of createGatewayTokens. */
export interface GatewayTokensOptions {
  readonly configurations: ClientConfigurations;
  readonly emit: (event: CredentialsEvent) => void;
  readonly now: () => number;
}

const digest = (value: string): string => createHash('sha256').update(value).digest('base64url');

/**
 * A JWT's `exp` in epoch ms, read without checking the signature (the gateway verified the caller's token
 * before handing it here); undefined for an opaque token.
 */
const expiryOf = (token: string): number | undefined => {
  const [, payload] = token.split('.');
  if (payload === undefined) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
};

/** Gateway tokens cached in this process (they are the gateway's, or derived per request: nothing to share). */
export function createGatewayTokens(options: GatewayTokensOptions): GatewayTokens {
  const { configurations, emit, now } = options;
  const tokens = createTokenCache(now);

  // A refused request (the server answered an OAuth error) is counted apart from one that could not be made.
  const fetchToken = async (
    kind: 'client_credentials' | 'exchange',
    upstream: string,
    request: () => Promise<{ access_token: string; expires_in?: number }>,
  ) => {
    try {
      const response = await request();
      emit({ kind, provider: upstream, outcome: 'ok' });
      return { accessToken: response.access_token, renewAt: renewAtOf(now(), response.expires_in) };
    } catch (error) {
      const what = kind === 'exchange' ? 'token exchange' : 'client credentials';
      const mapped = mapOAuthError(error, 'EXCHANGE_FAILED', what, upstream);
      emit({ kind, provider: upstream, outcome: mapped.code === 'EXCHANGE_FAILED' ? 'refused' : 'failed' });
      throw mapped;
    }
  };

  return {
    clientCredentials: (key, client) =>
      tokens.get(`cc:${key}`, () =>
        fetchToken('client_credentials', key, async () =>
          requestClientCredentials(await configurations.tokenEndpoint(`cc:${key}`, key, client), client),
        ),
      ),
    exchanged: (upstream, exchange, principal, subject) =>
      tokens.get(`x:${upstream}:${principal}\n${digest(subject)}`, async () => {
        const token = await fetchToken('exchange', upstream, async () =>
          requestTokenExchange(
            await configurations.tokenEndpoint(`x:${upstream}`, upstream, exchange),
            subject,
            exchange,
          ),
        );
        // Never kept past the caller's own token: what was exchanged for it ends with it.
        const subjectExpiry = expiryOf(subject);
        return subjectExpiry === undefined
          ? token
          : { ...token, renewAt: Math.min(token.renewAt, subjectExpiry) };
      }),
    dropClientCredentials: (key, token) => tokens.invalidate(`cc:${key}`, token),
    dropExchanged: (upstream, principal) => tokens.invalidatePrefix(`x:${upstream}:${principal}\n`),
  };
}
