import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey as JoseCryptoKey, type JWK, SignJWT } from 'jose';
import Provider from 'oidc-provider';

/** A signing key of the test provider: the private JWK it signs with and its kid. */
export interface ProviderKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
  readonly privateKey: JoseCryptoKey;
}

/** A client registered at the provider (client credentials). */
export interface ProviderClient {
  readonly id: string;
  readonly secret: string;
  /** Scopes it may ask for. */
  readonly scopes: readonly string[];
  /** Extra claims in its access tokens (e.g. groups for claim grants). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Access tokens as opaque strings (checked by introspection) instead of JWTs. */
  readonly opaque?: boolean;
}

/** A real OpenID provider (oidc-provider) on a loopback port, for the gateway's OAuth tests. */
export interface TestProvider {
  readonly issuer: string;
  /** Keys it publishes, the first signing; replace with rotate(). */
  readonly keys: readonly ProviderKey[];
  /** Requests its JWKS endpoint has answered. */
  jwksFetches(): number;
  /** Requests its introspection endpoint has answered. */
  introspections(): number;
  /** A client-credentials access token for resource (RFC 8707) with the given scopes. */
  token(client: ProviderClient, options: { resource: string; scope?: string }): Promise<string>;
  /** Signs a token with the provider's current key, with any claims (for expired or odd tokens). */
  sign(
    claims: Readonly<Record<string, unknown>>,
    options?: { key?: ProviderKey; alg?: string },
  ): Promise<string>;
  /** Restarts the provider on the same port, signing with a new key and publishing the new and the old. */
  rotate(): Promise<ProviderKey>;
  /** Stops answering (the port refuses connections) until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Makes an RS256 key with a kid. */
export async function makeKey(kid: string): Promise<ProviderKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, publicJwk, privateKey };
}

/** Starts the provider with these clients; every client may get tokens for any resource. */
export async function startTestProvider(clients: readonly ProviderClient[]): Promise<TestProvider> {
  let keys: ProviderKey[] = [await makeKey('key-1')];
  let fetches = 0;
  let introspections = 0;
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let server: Server | undefined;
  let port = 0;
  const allScopes = [...new Set(clients.flatMap((c) => c.scopes))];

  const listen = async (): Promise<void> => {
    const s = createServer((req, res) => {
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
  const byId = new Map(clients.map((c) => [c.id, c]));

  const build = (): void => {
    const provider = new Provider(issuer, {
      clients: clients.map((c) => ({
        client_id: c.id,
        client_secret: c.secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: c.scopes.join(' '),
      })),
      jwks: { keys: keys.map((k) => k.privateJwk) },
      scopes: allScopes,
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        introspection: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined as unknown as string,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => ({
            scope: allScopes.join(' '),
            audience: resource,
            accessTokenTTL: 600,
            accessTokenFormat: byId.get(client.clientId)?.opaque === true ? 'opaque' : 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      extraTokenClaims: (_ctx: unknown, token: { clientId?: string }) =>
        ({ ...(byId.get(token.clientId ?? '')?.claims ?? {}) }) as Record<string, unknown>,
    });
    provider.on('server_error', (_ctx: unknown, error: unknown) => {
      process.stderr.write(`oidc-provider server_error: ${String(error)}\n`);
    });
    handler = provider.callback() as (req: IncomingMessage, res: ServerResponse) => void;
  };
  build();

  return {
    issuer,
    get keys() {
      return keys;
    },
    jwksFetches: () => fetches,
    introspections: () => introspections,
    async token(client, options) {
      // A kept-alive socket to a provider that restarted (rotate) is closed under the first request.
      const post = (init: RequestInit) =>
        fetch(`${issuer}/token`, init).catch(() => fetch(`${issuer}/token`, init));
      const response = await post({
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          resource: options.resource,
          ...(options.scope === undefined ? {} : { scope: options.scope }),
        }).toString(),
      });
      const body = (await response.json()) as {
        access_token?: string;
        error?: string;
        error_description?: string;
      };
      if (body.access_token === undefined) throw new Error(`token request failed: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    async sign(claims, options = {}) {
      const key = options.key ?? keys[0];
      if (key === undefined) throw new Error('no key');
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
    },
    async rotate() {
      const next = await makeKey(`key-${keys.length + 1}`);
      keys = [next, ...keys];
      await stop();
      build();
      await listen();
      return next;
    },
    stop,
    start: listen,
    close: stop,
  };
}
