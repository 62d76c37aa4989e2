import { readFileSync } from 'node:fs';
import { createRedisConnection, type RedisConnection } from '@skillgate/state';
import {
  type AuthorizationServer,
  type RedisServer,
  startAuthorizationServer,
  startRedisServer,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Credentials,
  type CredentialsEvent,
  type CredentialsOptions,
  createCredentials,
} from '../src/index.js';
import { createFileStore } from '../src/store/fileStore.js';
import { gatewayClient, oauthProvider, settingsWith, testEnv, UPSTREAM_URL } from './fixtures/setup.js';

let server: AuthorizationServer;
let redis: RedisServer;
const connections: RedisConnection[] = [];

beforeAll(async () => {
  server = await startAuthorizationServer({ clients: [gatewayClient], scopes: ['repo'] });
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const c of connections) await c.close();
  await Promise.all([server.close(), redis.close()]);
});

const upstream = { upstream: 'gh', kind: 'provider', provider: 'idp' } as const;

/** Connects `principal` over HTTP: the link, the provider's sign-in and consent, the callback. */
async function connectOver(credentials: Credentials, principal: string, hint = 'alice'): Promise<string> {
  const link = await credentials.startFlow(principal, 'idp');
  const authorization = new URL(await credentials.authorizationUrl(link.id, principal));
  authorization.searchParams.set('login_hint', hint);
  const callback = await server.authorize(authorization.href);
  expect(await credentials.completeCallback(callback)).toEqual({
    kind: 'connected',
    principal,
    provider: 'idp',
  });
  return callback;
}

const tokenOf = (answer: Awaited<ReturnType<Credentials['headersFor']>>): string => {
  if (answer.kind !== 'headers') throw new Error(`expected headers, got ${JSON.stringify(answer)}`);
  return String(answer.headers.Authorization).replace(/^Bearer /, '');
};

describe('a provider connection (authorization code + PKCE)', () => {
  it('asks to connect, connects over HTTP, and sends the upstream a token for itself', async () => {
    const env = testEnv();
    const settings = settingsWith({ providers: [oauthProvider(server.issuer)], upstreams: [upstream] });
    const events: CredentialsEvent[] = [];
    const credentials = createCredentials({ settings, env, onEvent: (e) => events.push(e) });
    expect(await credentials.headersFor('gh', 'token:alice')).toEqual({ kind: 'connect', provider: 'idp' });

    const link = await credentials.startFlow('token:alice', 'idp');
    expect(link.url).toBe(`http://127.0.0.1:9/connect/${link.id}`);
    expect(link.url).not.toContain('alice');
    const authorization = new URL(await credentials.authorizationUrl(link.id, 'token:alice'));
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(UPSTREAM_URL);
    expect(authorization.searchParams.get('redirect_uri')).toBe('http://127.0.0.1:9/connect/callback');
    const callback = await server.authorize(authorization.href);
    // oidc-provider sends iss (RFC 9207); openid-client checked it against the discovered issuer.
    expect(new URL(callback).searchParams.get('iss')).toBe(server.issuer);
    expect(await credentials.completeCallback(callback)).toEqual({
      kind: 'connected',
      principal: 'token:alice',
      provider: 'idp',
    });
    // A replayed callback completes nothing.
    await expect(credentials.completeCallback(callback)).rejects.toMatchObject({ code: 'FLOW_INVALID' });

    const token = tokenOf(await credentials.headersFor('gh', 'token:alice'));
    expect(await server.verify(token, UPSTREAM_URL)).toMatchObject({ sub: 'alice', aud: UPSTREAM_URL });
    expect(await credentials.connections('token:alice')).toEqual([
      { principal: 'token:alice', provider: 'idp', state: 'connected', expiresAt: expect.any(Number) },
    ]);
    expect(await credentials.counts()).toEqual({ idp: 1 });
    expect(events).toContainEqual({ kind: 'connect', provider: 'idp', outcome: 'ok' });
    // Nothing of the tokens in the store's bytes.
    const bytes = readFileSync(settings.file ?? '');
    expect(bytes.includes(token)).toBe(false);
    // Another principal is still asked to connect: a connection is one principal's.
    expect(await credentials.headersFor('gh', 'token:bob')).toEqual({ kind: 'connect', provider: 'idp' });
  });

  it('refuses a flow completed by another principal and leaves it pending for its own', async () => {
    const credentials = createCredentials({
      settings: settingsWith({ providers: [oauthProvider(server.issuer)], upstreams: [upstream] }),
      env: testEnv(),
    });
    const link = await credentials.startFlow('token:alice', 'idp');
    await expect(credentials.authorizationUrl(link.id, 'token:mallory')).rejects.toMatchObject({
      code: 'FLOW_FORBIDDEN',
    });
    expect((await credentials.flow(link.id))?.principal).toBe('token:alice');
    // A callback whose state is not the flow's own completes nothing and leaves the flow.
    await expect(
      credentials.completeCallback(`http://127.0.0.1:9/connect/callback?code=x&state=${link.id}.forged`),
    ).rejects.toMatchObject({ code: 'FLOW_INVALID' });
    expect(await credentials.flow(link.id)).toBeDefined();
    await expect(
      credentials.completeCallback('http://127.0.0.1:9/connect/callback?code=x'),
    ).rejects.toMatchObject({
      code: 'FLOW_INVALID',
    });
  });

  it('refreshes an expiring token once for concurrent callers on two replicas sharing Redis', async () => {
    const env = testEnv();
    const settings = settingsWith({
      store: 'redis',
      providers: [oauthProvider(server.issuer)],
      upstreams: [upstream],
    });
    let clock = Date.now();
    const replica = async (): Promise<Credentials> => {
      const connection = createRedisConnection({ url: redis.url, keyPrefix: 'refresh-test:' });
      connections.push(connection);
      await connection.waitUntilReady(5000);
      const options: CredentialsOptions = { settings, env, redis: connection, now: () => clock };
      return createCredentials(options);
    };
    const [a, b] = [await replica(), await replica()];
    await connectOver(a, 'token:alice');
    const first = tokenOf(await b.headersFor('gh', 'token:alice'));

    // 10 minutes later the token expires within the 60 s margin: one refresh for everyone.
    clock += 590_000;
    const before = server.tokenRequests('refresh_token');
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).headersFor('gh', 'token:alice')),
    );
    expect(server.tokenRequests('refresh_token') - before).toBe(1);
    const tokens = new Set(answers.map(tokenOf));
    expect(tokens.size).toBe(1);
    expect(tokens.has(first)).toBe(false);
    expect(await server.verify([...tokens][0] ?? '', UPSTREAM_URL)).toMatchObject({ sub: 'alice' });
  });

  it('drops the connection when the provider refuses the refresh, and asks to connect again', async () => {
    const env = testEnv();
    const settings = settingsWith({ providers: [oauthProvider(server.issuer)], upstreams: [upstream] });
    let clock = Date.now();
    const events: CredentialsEvent[] = [];
    const logged: string[] = [];
    const credentials = createCredentials({
      settings,
      env,
      now: () => clock,
      onEvent: (e) => events.push(e),
      log: (entry) => logged.push(entry.code),
    });
    await connectOver(credentials, 'token:alice');
    const store = createFileStore({ path: settings.file ?? '' });
    const beforeRefresh = await store.get('token:alice', 'idp');
    clock += 590_000;
    tokenOf(await credentials.headersFor('gh', 'token:alice'));
    // The record as it was before the refresh: its refresh token was rotated away, and oidc-provider treats a
    // reused one as stolen (invalid_grant).
    await store.put('token:alice', 'idp', beforeRefresh ?? '');
    expect(await credentials.headersFor('gh', 'token:alice')).toEqual({ kind: 'connect', provider: 'idp' });
    expect(await store.get('token:alice', 'idp')).toBeUndefined();
    expect(events).toContainEqual({ kind: 'refresh', provider: 'idp', outcome: 'refused' });
    expect(logged).toContain('REFRESH_REFUSED');
  });

  it('refreshes once after the upstream answered 401 to a token that had not expired', async () => {
    const credentials = createCredentials({
      settings: settingsWith({ providers: [oauthProvider(server.issuer)], upstreams: [upstream] }),
      env: testEnv(),
    });
    await connectOver(credentials, 'token:alice');
    const first = tokenOf(await credentials.headersFor('gh', 'token:alice'));
    const before = server.tokenRequests('refresh_token');
    const sent = await credentials.headersFor('gh', 'token:alice');
    await credentials.onUpstream401('gh', 'token:alice', sent.kind === 'headers' ? sent.headers : undefined);
    const [again] = await Promise.all([1, 2, 3].map(() => credentials.headersFor('gh', 'token:alice')));
    expect(tokenOf(again ?? sent)).not.toBe(first);
    // A late 401 for the refused token drops nothing more.
    await credentials.onUpstream401('gh', 'token:alice', sent.kind === 'headers' ? sent.headers : undefined);
    tokenOf(await credentials.headersFor('gh', 'token:alice'));
    expect(server.tokenRequests('refresh_token') - before).toBe(1);
  });

  it('revokes the tokens at the provider on disconnect (RFC 7009) and forgets the connection', async () => {
    const credentials = createCredentials({
      settings: settingsWith({ providers: [oauthProvider(server.issuer)], upstreams: [upstream] }),
      env: testEnv(),
    });
    await connectOver(credentials, 'token:alice');
    const before = server.revocations();
    expect(await credentials.disconnect('token:alice', 'idp')).toEqual({ removed: true, revoked: true });
    expect(server.revocations() - before).toBe(2);
    expect(await credentials.connections('token:alice')).toEqual([]);
    expect(await credentials.disconnect('token:alice', 'idp')).toEqual({ removed: false, revoked: false });
    expect(await credentials.headersFor('gh', 'token:alice')).toEqual({ kind: 'connect', provider: 'idp' });
  });

  it('refuses a provider whose issuer is not https off loopback, before sending anything', async () => {
    const credentials = createCredentials({
      settings: settingsWith({ providers: [oauthProvider('http://idp.example.com')], upstreams: [upstream] }),
      env: testEnv(),
    });
    const link = await credentials.startFlow('token:alice', 'idp');
    await expect(credentials.authorizationUrl(link.id, 'token:alice')).rejects.toMatchObject({
      code: 'INSECURE_ENDPOINT',
    });
  });
});
