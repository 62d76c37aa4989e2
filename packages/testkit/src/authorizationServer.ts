import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { autoInteraction } from './authorization/autoInteraction.js';
import { followAuthorization } from './authorization/followAuthorization.js';
import { type AuthorizationClient, makeKey, type ProviderKey } from './authorization/keysAndClients.js';
import { providerConfiguration } from './authorization/providerConfiguration.js';
import { registerTokenExchange } from './authorization/tokenExchangeGrant.js';

/** Options of startAuthorizationServer. */
export interface AuthorizationServerOptions {
  readonly clients: readonly AuthorizationClient[];
  /** Scopes the server knows (every client may ask for any). */
  readonly scopes?: readonly string[];
  /** Lifetime of access tokens in seconds (default 600). */
  readonly accessTokenTtlSeconds?: number;
  /** Who signs in when the authorization request has no login_hint (default `alice`). */
  readonly subject?: string;
  /** oidc-provider's own sign-in and consent forms (devInteractions) for a browser; no `authorize()` then. */
  readonly interactive?: boolean;
}

/** A real OAuth 2.1 / OpenID Connect authorization server (oidc-provider) on a loopback port. */
export interface AuthorizationServer {
  readonly issuer: string;
  /** Keys it publishes, the first signing; replaced by rotate(). */
  readonly keys: readonly ProviderKey[];
  /** Requests its JWKS endpoint has answered. */
  jwksFetches(): number;
  /** Requests its introspection endpoint has answered. */
  introspections(): number;
  /** A client-credentials access token for resource (RFC 8707) with the given scopes. */
  token(client: AuthorizationClient, options: { resource: string; scope?: string }): Promise<string>;
  /** Signs a token with the current key (or the one given), with any claims (for expired or odd tokens). */
  sign(
    claims: Readonly<Record<string, unknown>>,
    options?: { key?: ProviderKey; alg?: string },
  ): Promise<string>;
  /** Restarts on the same port, signing with a new key and publishing the new and the old. */
  rotate(): Promise<ProviderKey>;
  readonly tokenEndpoint: string;
  readonly revocationEndpoint: string;
  /** Requests to the token endpoint per grant_type (answered or refused). */
  tokenRequests(grantType?: string): number;
  /** Requests to the revocation endpoint. */
  revocations(): number;
  /**
   * Revokes at the server every refresh token it has issued (an administrator's revocation the gateway does
   * not see); returns how many it destroyed.
   */
  revokeRefreshTokens(): Promise<number>;
  /** Token-exchange requests refused (bad subject token, missing audience). */
  exchangesRefused(): number;
  /**
   * Follows an authorization URL like a browser that signs in as `login_hint` (or the default subject) and
   * consents to everything asked, and returns the URL the server redirects back to (code, state, iss).
   */
  authorize(authorizationUrl: string): Promise<string>;
  /** A client-credentials access token (for a subject token in exchange tests, say). */
  clientCredentials(
    client: AuthorizationClient,
    options?: { resource?: string; scope?: string },
  ): Promise<TokenSet>;
  /** Runs a full authorization code flow (no PKCE) for a token a person would have, as `subject`. */
  personToken(
    client: AuthorizationClient,
    options: { subject: string; resource?: string; scope?: string; redirectUri: string },
  ): Promise<TokenSet>;
  /** Verifies a JWT access token this server issued; its claims. */
  verify(token: string, audience?: string): Promise<Readonly<Record<string, unknown>>>;
  /** Stops answering (connections refused) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** A token endpoint answer. */
export interface TokenSet {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly expires_in?: number;
  readonly token_type: string;
  readonly scope?: string;
}

const basic = (client: AuthorizationClient): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;

/** The key tokens are signed with: the first of the ring (rotate() puts a new one first). */
function firstKey(keys: readonly ProviderKey[]): ProviderKey {
  const [key] = keys;
  if (key === undefined) throw new Error('no key');
  return key;
}

/**
 * Starts the server: client credentials; authorization code + PKCE with a sign-in and consent that complete
 * themselves (`authorize`, or a browser following the redirects), or that a browser fills in (`interactive`); rotating refresh tokens; RFC 7009
 * revocation; RFC 8707 resource indicators (a token's audience is its resource, as a JWT); and RFC 8693
 * token exchange, registered with `registerGrantType`: the subject token must be one of this server's own
 * valid access tokens, and the issued token's audience is the requested `audience` (or `resource`).
 */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions,
): Promise<AuthorizationServer> {
  let keys: ProviderKey[] = [await makeKey('key-1')];
  let jwks = createLocalJWKSet({ keys: keys.map((k) => k.publicJwk) });
  let fetches = 0;
  let introspections = 0;
  const scopes = [...new Set(['openid', 'offline_access', ...(options.scopes ?? [])])];
  const ttl = options.accessTokenTtlSeconds ?? 600;
  const interactive = options.interactive === true;
  const counts = new Map<string, number>();
  let revocations = 0;
  let exchangesRefused = 0;
  const refreshTokens = new Set<string>();
  let current: Provider | undefined;

  let server: Server | undefined;
  let port = 0;
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const listen = async (): Promise<void> => {
    const s = createServer((req, res) => {
      if (req.method === 'POST' && req.url?.startsWith('/token/revocation') === true) revocations += 1;
      if (req.url?.startsWith('/jwks') === true) fetches += 1;
      if (req.url?.startsWith('/token/introspection') === true) introspections += 1;
      if (handler === undefined) res.writeHead(503).end();
      else handler(req, res);
    });
    await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    if (s === undefined) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  await listen();
  const issuer = `http://127.0.0.1:${port}`;
  const currentKey = (): ProviderKey => firstKey(keys);

  // Built again by rotate(), publishing the new key beside the old ones; every other part is the same.
  const build = (): void => {
    const provider = new Provider(
      issuer,
      providerConfiguration({ clients: options.clients, keys, scopes, ttl, interactive }),
    );
    current = provider;
    provider.on('server_error', (_ctx: unknown, error: unknown) => {
      process.stderr.write(`authorization server error: ${String(error)}\n`);
    });
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.method === 'POST' && ctx.path === '/token') {
        const grantType = (ctx as KoaContextWithOIDC).oidc?.params?.grant_type;
        const key = typeof grantType === 'string' ? grantType : 'unknown';
        counts.set(key, (counts.get(key) ?? 0) + 1);
        const issued = (ctx.body as { refresh_token?: unknown } | undefined)?.refresh_token;
        if (typeof issued === 'string') refreshTokens.add(issued);
      }
    });

    registerTokenExchange(provider, {
      issuer,
      jwks: () => jwks,
      signingKey: currentKey,
      ttlSeconds: ttl,
      onRefused: () => {
        exchangesRefused += 1;
      },
    });

    const interaction = autoInteraction(provider, options.subject ?? 'alice');
    const callback = provider.callback();
    handler = (req, res) => {
      if (!interactive && req.url?.startsWith('/interaction/') === true) {
        interaction(req, res).catch((error: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
        });
        return;
      }
      callback(req, res);
    };
  };
  build();

  const tokenRequest = async (
    client: AuthorizationClient,
    body: Record<string, string>,
  ): Promise<TokenSet> => {
    const init: RequestInit = {
      method: 'POST',
      headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    };
    // A kept-alive socket to a server that restarted (rotate) is closed under the first request.
    const response = await fetch(`${issuer}/token`, init).catch(() => fetch(`${issuer}/token`, init));
    const json = (await response.json()) as TokenSet & { error?: string };
    if (json.error !== undefined || typeof json.access_token !== 'string') {
      throw new Error(`token request failed: ${json.error ?? response.status}`);
    }
    return json;
  };

  const authorize = (url: string): Promise<string> => followAuthorization(issuer, url);

  return {
    issuer,
    get keys() {
      return keys;
    },
    jwksFetches: () => fetches,
    introspections: () => introspections,
    async token(client, o) {
      return (
        await tokenRequest(client, {
          grant_type: 'client_credentials',
          resource: o.resource,
          ...(o.scope === undefined ? {} : { scope: o.scope }),
        })
      ).access_token;
    },
    async sign(claims, o = {}) {
      const key = o.key ?? currentKey();
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: o.alg ?? 'RS256', kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    async rotate() {
      const next = await makeKey(`key-${keys.length + 1}`);
      keys = [next, ...keys];
      jwks = createLocalJWKSet({ keys: keys.map((k) => k.publicJwk) });
      await stop();
      build();
      await listen();
      return next;
    },
    tokenEndpoint: `${issuer}/token`,
    revocationEndpoint: `${issuer}/token/revocation`,
    tokenRequests: (grantType) =>
      grantType === undefined
        ? [...counts.values()].reduce((a, b) => a + b, 0)
        : (counts.get(grantType) ?? 0),
    revocations: () => revocations,
    exchangesRefused: () => exchangesRefused,
    async revokeRefreshTokens() {
      let live = 0;
      for (const value of refreshTokens) {
        const token = await current?.RefreshToken.find(value);
        if (token !== undefined && !token.isExpired) {
          live += 1;
          await token.destroy();
        }
      }
      refreshTokens.clear();
      return live;
    },
    authorize,
    clientCredentials: (client, o = {}) =>
      tokenRequest(client, {
        grant_type: 'client_credentials',
        ...(o.resource === undefined ? {} : { resource: o.resource }),
        ...(o.scope === undefined ? {} : { scope: o.scope }),
      }),
    async personToken(client, o) {
      const url = new URL(`${issuer}/auth`);
      url.search = new URLSearchParams({
        client_id: client.id,
        response_type: 'code',
        redirect_uri: o.redirectUri,
        scope: o.scope ?? 'openid',
        login_hint: o.subject,
        ...(o.resource === undefined ? {} : { resource: o.resource }),
      }).toString();
      const back = new URL(await authorize(url.href));
      const code = back.searchParams.get('code');
      if (code === null)
        throw new Error(`no code in the redirect: ${back.searchParams.get('error') ?? 'none'}`);
      return tokenRequest(client, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: o.redirectUri,
        ...(o.resource === undefined ? {} : { resource: o.resource }),
      });
    },
    async verify(token, audience) {
      const { payload } = await jwtVerify(token, jwks, {
        issuer,
        ...(audience === undefined ? {} : { audience }),
      });
      return payload;
    },
    stop,
    start: listen,
    close: stop,
  };
}
