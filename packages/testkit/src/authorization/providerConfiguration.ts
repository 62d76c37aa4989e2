import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { AuthorizationClient, ProviderKey } from './keysAndClients.js';
import { TOKEN_EXCHANGE } from './tokenExchangeGrant.js';

/** What the server's oidc-provider configuration is made of. */
export interface ProviderConfigurationOptions {
  readonly clients: readonly AuthorizationClient[];
  /** The keys published, the first signing. */
  readonly keys: readonly ProviderKey[];
  readonly scopes: readonly string[];
  readonly ttl: number;
  /** oidc-provider's own sign-in and consent pages (devInteractions) instead of the self-completing ones. */
  readonly interactive: boolean;
}

/**
 * oidc-provider's configuration for the test server: every client may use client credentials and token
 * exchange, and the code flow with refresh when it has redirect URIs; refresh tokens rotate; a token's
 * audience is its RFC 8707 resource, as a JWT (or opaque, per client).
 */
export function providerConfiguration(options: ProviderConfigurationOptions): Configuration {
  const { keys, ttl } = options;
  const scopes = [...options.scopes];
  const byId = new Map(options.clients.map((c) => [c.id, c]));
  const clients = options.clients;
  return {
    clients: clients.map((c) => ({
      client_id: c.id,
      client_secret: c.secret,
      grant_types: [
        'client_credentials',
        TOKEN_EXCHANGE,
        ...(c.redirectUris === undefined ? [] : ['authorization_code', 'refresh_token']),
      ],
      redirect_uris: [...(c.redirectUris ?? [])],
      response_types: c.redirectUris === undefined ? [] : ['code'],
      token_endpoint_auth_method: c.authMethod ?? 'client_secret_basic',
      scope: (c.scopes ?? scopes).join(' '),
    })),
    jwks: { keys: keys.map((k) => k.privateJwk) },
    scopes,
    pkce: { required: () => false },
    // Every login hint is an account; its claims are its id.
    findAccount: (_ctx: KoaContextWithOIDC, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    // devInteractions sets its own interaction URL (and warns when one is configured beside it).
    ...(options.interactive
      ? {}
      : {
          interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
        }),
    // Refresh tokens whenever the client may refresh, rotated on every use (a reused one is refused).
    issueRefreshToken: (_ctx: KoaContextWithOIDC, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: ttl,
      ClientCredentials: ttl,
      RefreshToken: 86_400,
      IdToken: 600,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 600,
      Grant: 86_400,
    },
    features: {
      devInteractions: { enabled: options.interactive },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      // Any authenticated client may revoke any token (a test server).
      revocation: { enabled: true, allowedPolicy: () => true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as unknown as string,
        useGrantedResource: () => true,
        getResourceServerInfo: (
          _ctx: KoaContextWithOIDC,
          resource: string,
          client: { clientId: string },
        ) => ({
          scope: scopes.join(' '),
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: byId.get(client.clientId)?.opaque === true ? 'opaque' : 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx: KoaContextWithOIDC, token: { clientId?: string }) =>
      ({ ...(byId.get(token.clientId ?? '')?.claims ?? {}) }) as Record<string, unknown>,
  };
}
