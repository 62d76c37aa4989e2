import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLocalJWKSet,
  exportJWK,
  generateKeyPair,
  type CryptoKey as JoseCryptoKey,
  type JWK,
  jwtVerify,
  SignJWT,
} from 'jose';
import Provider, { type KoaContextWithOIDC, type TokenEndpointGrantContext } from 'oidc-provider';

/** RFC 8693's grant type. */
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** A signing key of the test server: the private JWK it signs with and its kid. */
export interface ProviderKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
  readonly privateKey: JoseCryptoKey;
}

/** Makes an RS256 key with a kid. */
export async function makeKey(kid: string): Promise<ProviderKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, publicJwk, privateKey };
}

/** A client registered at the test authorization server. */
export interface AuthorizationClient {
  readonly id: string;
  readonly secret: string;
  /** Scopes it may ask for (default every scope of the server). */
  readonly scopes?: readonly string[];
  /** Extra claims in its access tokens (e.g. groups for claim grants). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Its access tokens as opaque strings (checked by introspection) instead of JWTs. */
  readonly opaque?: boolean;
  /** Where codes may be sent back (authorization code flow); none: client credentials and exchange only. */
  readonly redirectUris?: readonly string[];
  /** client_secret_basic (default) or client_secret_post. */
  readonly authMethod?: 'client_secret_basic' | 'client_secret_post';
}

/** Options of startAuthorizationServer. */
export interface AuthorizationServerOptions {
  readonly clients: readonly AuthorizationClient[];
  /** Scopes the server knows (every client may ask for any). */
  readonly scopes?: readonly string[];
  /** Lifetime of access tokens in seconds (default 600). */
  readonly accessTokenTtlSeconds?: number;
  /** Who signs in when the authorization request has no login_hint (default `alice`). */
  readonly subject?: string;
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

/**
 * Starts the server: client credentials; authorization code + PKCE with a sign-in and consent that complete
 * themselves (`authorize`, or a browser following the redirects); rotating refresh tokens; RFC 7009
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
  const byId = new Map(options.clients.map((c) => [c.id, c]));
  const scopes = [...new Set(['openid', 'offline_access', ...(options.scopes ?? [])])];
  const ttl = options.accessTokenTtlSeconds ?? 600;
  const counts = new Map<string, number>();
  let revocations = 0;
  let exchangesRefused = 0;

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
  const currentKey = (): ProviderKey => {
    const [key] = keys;
    if (key === undefined) throw new Error('no key');
    return key;
  };

  // Built again by rotate(), publishing the new key beside the old ones; every other part is the same.
  const build = (): void => {
    const provider = new Provider(issuer, {
      clients: options.clients.map((c) => ({
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
      interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
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
        devInteractions: { enabled: false },
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
    });
    provider.on('server_error', (_ctx: unknown, error: unknown) => {
      process.stderr.write(`authorization server error: ${String(error)}\n`);
    });
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.method === 'POST' && ctx.path === '/token') {
        const grantType = (ctx as KoaContextWithOIDC).oidc?.params?.grant_type;
        const key = typeof grantType === 'string' ? grantType : 'unknown';
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    });

    // The subject token is one of this server's access tokens: a JWT it signed, or an opaque one it stored.
    const subjectOf = async (token: string): Promise<string | undefined> => {
      if (token.split('.').length === 3) {
        try {
          const { payload } = await jwtVerify(token, jwks, { issuer });
          return typeof payload.sub === 'string' ? payload.sub : undefined;
        } catch {
          return undefined;
        }
      }
      const found = await provider.AccessToken.find(token);
      return found?.isValid === true ? found.accountId : undefined;
    };

    provider.registerGrantType(
      TOKEN_EXCHANGE,
      async (ctx: TokenEndpointGrantContext) => {
        const { params, client } = ctx.oidc;
        const refuse = (error: string, description: string): void => {
          exchangesRefused += 1;
          ctx.status = 400;
          ctx.body = { error, error_description: description };
        };
        if (params.subject_token_type !== ACCESS_TOKEN_TYPE || typeof params.subject_token !== 'string') {
          refuse('invalid_request', 'subject_token of type access_token required');
          return;
        }
        const subject = await subjectOf(params.subject_token);
        if (subject === undefined) {
          refuse('invalid_grant', 'subject_token is not a valid access token of this server');
          return;
        }
        const audience =
          typeof params.audience === 'string'
            ? params.audience
            : typeof params.resource === 'string'
              ? params.resource
              : undefined;
        if (audience === undefined) {
          refuse('invalid_target', 'audience or resource required');
          return;
        }
        const scope = typeof params.scope === 'string' ? params.scope : undefined;
        // A JWT the upstream can verify against the JWKS: sub = the person, aud = the upstream, act = who asked.
        const now = Math.floor(Date.now() / 1000);
        const jwt = await new SignJWT({ scope, client_id: client.clientId, act: { sub: client.clientId } })
          .setProtectedHeader({ alg: 'RS256', kid: currentKey().kid, typ: 'at+jwt' })
          .setIssuer(issuer)
          .setSubject(subject)
          .setAudience(audience)
          .setIssuedAt(now)
          .setJti(randomUUID())
          .setExpirationTime(now + ttl)
          .sign(currentKey().privateKey);
        ctx.body = {
          access_token: jwt,
          issued_token_type: ACCESS_TOKEN_TYPE,
          token_type: 'Bearer',
          expires_in: ttl,
          ...(scope === undefined ? {} : { scope }),
        };
      },
      ['subject_token', 'subject_token_type', 'audience', 'resource', 'scope', 'requested_token_type'],
      ['audience', 'resource'],
    );

    // The sign-in and consent pages complete themselves: the account is the login_hint (or the default subject),
    // and every scope and resource asked for is granted.
    const interaction = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const details = await provider.interactionDetails(req, res);
      const { prompt, params, session } = details;
      if (prompt.name === 'login') {
        const hint = typeof params.login_hint === 'string' ? params.login_hint : undefined;
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: hint ?? options.subject ?? 'alice' } },
          { mergeWithLastSubmission: false },
        );
        return;
      }
      const accountId = session?.accountId;
      const clientId = typeof params.client_id === 'string' ? params.client_id : undefined;
      const grant = new provider.Grant({
        ...(accountId === undefined ? {} : { accountId }),
        ...(clientId === undefined ? {} : { clientId }),
      });
      const scope = typeof params.scope === 'string' ? params.scope : '';
      grant.addOIDCScope(scope);
      const resources =
        params.resource === undefined
          ? []
          : Array.isArray(params.resource)
            ? params.resource
            : [params.resource];
      for (const resource of resources)
        if (typeof resource === 'string') grant.addResourceScope(resource, scope);
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    };
    const callback = provider.callback();
    handler = (req, res) => {
      if (req.url?.startsWith('/interaction/') === true) {
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

  const authorize = async (authorizationUrl: string): Promise<string> => {
    const cookies = new Map<string, string>();
    let url = authorizationUrl;
    for (let hop = 0; hop < 20; hop++) {
      if (!url.startsWith(issuer)) return url;
      const response = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair?.indexOf('=') ?? -1;
        if (pair !== undefined && eq > 0) cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = response.headers.get('location');
      await response.body?.cancel();
      if (location === null)
        throw new Error(`authorization stopped at ${response.status} without a redirect`);
      url = new URL(location, url).href;
    }
    throw new Error('authorization redirected more than 20 times');
  };

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
