import { randomBytes } from 'node:crypto';
import { createRedisConnection, type RedisConnection } from '@skillgate/state';
import {
  type AuthorizationServer,
  type HttpTestUpstream,
  type RedisServer,
  startAuthorizationServer,
  startHttpUpstream,
  startRedisServer,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replicaCluster.js';
import { connectClient } from '../helpers/testGateway.js';

// docs/credentials.md on replicas: connections live in the shared Redis, so a person connects through one replica and
// calls through another; a token near expiry is refreshed once across replicas (the store's lock); a refresh
// the provider refuses drops the connection everywhere; a record moved under another principal's key does not
// open. The public URL is a TLS-terminating proxy's: every page here is reached at a replica's own port, so the
// callback arrives at an address other than the redirect_uri the provider was given.

const PUBLIC_URL = 'https://skillgate.replicas.test';
const ALICE = `alice-${randomBytes(12).toString('hex')}`;
const BOB = `bob-${randomBytes(12).toString('hex')}`;
const TOOL = 'skill_acme_call_whoami';
// Past the 60 s expiry margin by one second: a fresh token is used as it is, and one a second old is refreshed.
const TTL_SECONDS = 61;

let server: AuthorizationServer;
let upstream: HttpTestUpstream;
let redis: RedisServer;
let cluster: ReplicaCluster;
let raw: RedisConnection;

beforeAll(async () => {
  server = await startAuthorizationServer({
    clients: [
      {
        id: 'skillgate',
        secret: 'skillgate-client-secret',
        redirectUris: [`${PUBLIC_URL}/connect/callback`],
      },
    ],
    scopes: ['repo'],
    accessTokenTtlSeconds: TTL_SECONDS,
  });
  upstream = await startHttpUpstream(['--require-audience', server.issuer]);
  redis = await startRedisServer();
  cluster = await startReplicaCluster({
    redisUrl: redis.url,
    config: {
      server: { public_url: PUBLIC_URL },
      auth: {
        tokens: [
          { name: 'alice', token_env: 'T_ALICE' },
          { name: 'bob', token_env: 'T_BOB' },
        ],
      },
      rate_limit: { requests_per_second: 0 },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      // No store named: with a Redis state backend it is Redis.
      credentials: {
        keys: [{ id: 'k1', env: 'SG_KEY' }],
        providers: [
          {
            id: 'acme',
            oauth: {
              issuer: server.issuer,
              client_id_env: 'ACME_ID',
              client_secret_env: 'ACME_SECRET',
              scopes: ['repo'],
              resource: upstream.url,
            },
          },
        ],
      },
      upstreams: [{ id: 'acme', url: upstream.url, auth: { provider: 'acme' } }],
    },
    env: {
      T_ALICE: ALICE,
      T_BOB: BOB,
      SG_KEY: randomBytes(32).toString('base64'),
      ACME_ID: 'skillgate',
      ACME_SECRET: 'skillgate-client-secret',
    },
  });
  raw = createRedisConnection({ url: redis.url, keyPrefix: cluster.keyPrefix });
}, 30_000);
afterAll(async () => {
  await raw?.close();
  await cluster?.close();
  await Promise.all([upstream?.stop(), server?.close(), redis?.close()]);
});

const replica = (i: number) => {
  const r = cluster.replicas[i];
  if (r === undefined) throw new Error(`no replica ${i}`);
  return r;
};
/** A public URL as the proxy would forward it: the same path and query at replica i. */
const at = (i: number, url: string): string => {
  const u = new URL(url);
  return new URL(`${u.pathname}${u.search}`, replica(i).base).href;
};
const structured = (result: unknown): Record<string, unknown> =>
  ((result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {}) as Record<
    string,
    unknown
  >;
const callAt = async (i: number, token: string): Promise<Record<string, unknown>> => {
  const c = await connectClient(replica(i).url, { token });
  try {
    return structured(await c.client.callTool({ name: TOOL, arguments: {} }));
  } finally {
    await c.close();
  }
};

/** Asks replica `ask` for a link and connects as `subject` at the provider, every page at replica `via`. */
const connectVia = async (ask: number, via: number, token: string, subject: string): Promise<void> => {
  const need = await callAt(ask, token);
  expect(need).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
  const link = String(need.url);
  expect(link.startsWith(`${PUBLIC_URL}/connect/`)).toBe(true);
  const browser = new ConnectBrowser(replica(via).base);
  const bound = await browser.post(at(via, link), { token });
  expect(bound.status).toBe(303);
  const toProvider = await browser.get(at(via, link));
  expect(toProvider.status).toBe(303);
  const authorization = new URL(toProvider.location ?? '');
  expect(authorization.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/connect/callback`);
  authorization.searchParams.set('login_hint', subject);
  const callback = await server.authorize(authorization.href);
  const done = await browser.get(at(via, callback));
  expect(done.text).toContain('Connected');
  expect(done.status).toBe(200);
};

const expiresAt = async (token: string): Promise<number> => {
  const listed = await fetch(`${replica(0).base}/connections`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await listed.json()) as { connections: Array<{ expires_at?: string }> };
  return Date.parse(body.connections[0]?.expires_at ?? '');
};

describe('a connection shared by replicas', () => {
  it('is connected through one replica and used by the other', async () => {
    await connectVia(0, 0, ALICE, 'alice-at-acme');
    expect(await callAt(1, ALICE)).toEqual({ sub: 'alice-at-acme', aud: upstream.url });
  });

  it('is refreshed once for concurrent calls on both replicas when its token is within 60 s of expiry', async () => {
    const expiry = await expiresAt(ALICE);
    expect(expiry).toBeGreaterThan(Date.now() + 60_000 - 5_000);
    // The stored token enters the 60 s margin about a second after it was issued.
    await waitFor(() => Date.now() > expiry - 60_000 + 50, {
      what: 'the token to be within 60 s of expiry',
      timeoutMs: 5_000,
    });
    const before = server.tokenRequests('refresh_token');
    const clients = await Promise.all(
      [0, 1, 0, 1, 0, 1].map((i) => connectClient(replica(i).url, { token: ALICE })),
    );
    try {
      const results = await Promise.all(clients.map((c) => c.client.callTool({ name: TOOL, arguments: {} })));
      for (const result of results) {
        expect(structured(result)).toEqual({ sub: 'alice-at-acme', aud: upstream.url });
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    expect(server.tokenRequests('refresh_token') - before).toBe(1);
    // The refreshed token is stored for both: a later call on either replica refreshes nothing.
    expect(await expiresAt(ALICE)).toBeGreaterThan(expiry);
    expect(await callAt(1, ALICE)).toEqual({ sub: 'alice-at-acme', aud: upstream.url });
    expect(server.tokenRequests('refresh_token') - before).toBe(1);
  });

  it('is dropped when the provider refuses its refresh, and the next call on either replica asks to connect', async () => {
    expect(await server.revokeRefreshTokens()).toBeGreaterThan(0);
    const expiry = await expiresAt(ALICE);
    await waitFor(() => Date.now() > expiry - 60_000 + 50, {
      what: 'the token to be within 60 s of expiry',
      timeoutMs: 5_000,
    });
    const before = server.tokenRequests('refresh_token');
    expect(await callAt(1, ALICE)).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
    expect(server.tokenRequests('refresh_token') - before).toBe(1);
    expect(await callAt(0, ALICE)).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
    const listed = await fetch(`${replica(1).base}/connections`, {
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect(((await listed.json()) as { connections: unknown[] }).connections).toEqual([]);
  });

  it("does not open a record copied under another principal's key, and keeps serving", async () => {
    await connectVia(1, 1, ALICE, 'alice-at-acme');
    const keys = await raw.run((c) => c.keys(raw.key('cred', 'rec', '*')));
    expect(keys).toHaveLength(1);
    const [aliceKey] = keys;
    expect(aliceKey?.endsWith('alice')).toBe(true);
    const sealed = await raw.run((c) => c.hget(String(aliceKey), 'acme'));
    expect(sealed).toBeTypeOf('string');
    const bobKey = String(aliceKey).replace(/alice$/, 'bob');
    await raw.run((c) => c.hset(bobKey, 'acme', String(sealed)));

    // Bob gets a connect answer, never Alice's account, on either replica.
    for (const i of [0, 1]) {
      expect(await callAt(i, BOB)).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
    }
    // Alice's own record still opens, and Bob can connect his own account over the copied one.
    expect(await callAt(0, ALICE)).toEqual({ sub: 'alice-at-acme', aud: upstream.url });
    await connectVia(0, 1, BOB, 'bob-at-acme');
    expect(await callAt(0, BOB)).toEqual({ sub: 'bob-at-acme', aud: upstream.url });
    for (const r of cluster.replicas) expect((await fetch(`${r.base}/healthz`)).status).toBe(200);
  });
});
