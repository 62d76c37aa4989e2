import {
  type AuthorizationServer,
  freePort,
  type HttpTestUpstream,
  type RedisServer,
  startAuthorizationServer,
  startHttpUpstream,
  startRedisServer,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, acmeConnection, LOGIN } from '../helpers/acmeConnection.js';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import { connectRecorded, type ReplicaCluster, startReplicaCluster } from '../helpers/replicaCluster.js';

// docs/credentials.md on replicas, as people reach them: two replicas on one Redis behind a real HAProxy in round-robin
// (no stickiness), the public URL the balancer's. An OAuth principal's connect flow goes through the balancer,
// so its pages (the link, the sign-in, the sign-in's callback, the provider's callback) are answered by both
// replicas; then concurrent calls through the balancer, on both replicas, with a token inside its 60 s expiry
// margin are refreshed by exactly one refresh request at the provider (oidc-provider's own count).
// test/credentials/connectionReplicas.test.ts reaches each replica at its own port instead.

const TOOL = 'skill_acme_call_whoami';
// Past the 60 s expiry margin by one second: a fresh token is used as it is, and one a second old is refreshed.
const TTL_SECONDS = 61;

let identity: AuthorizationServer;
let provider: AuthorizationServer;
let upstream: HttpTestUpstream;
let redis: RedisServer;
let cluster: ReplicaCluster;
let publicUrl: string;
let agentToken: string;

beforeAll(async () => {
  const balancerPort = await freePort();
  publicUrl = `http://127.0.0.1:${balancerPort}`;
  const callback = [`${publicUrl}/connect/callback`];
  [identity, provider] = await Promise.all([
    startAuthorizationServer({ clients: [{ ...LOGIN, redirectUris: callback }], scopes: ['mcp'] }),
    startAuthorizationServer({
      clients: [{ ...ACME, redirectUris: callback }],
      scopes: ['repo'],
      accessTokenTtlSeconds: TTL_SECONDS,
    }),
  ]);
  [upstream, redis] = await Promise.all([
    startHttpUpstream(['--require-audience', provider.issuer]),
    startRedisServer(),
  ]);
  const acme = acmeConnection({ provider, upstreamUrl: upstream.url });
  cluster = await startReplicaCluster({
    redisUrl: redis.url,
    balancerPort,
    config: {
      server: { public_url: publicUrl },
      auth: { oauth: { issuer: identity.issuer, grants: [{ scope: 'mcp', skills: ['*'] }] } },
      rate_limit: { requests_per_second: 0 },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      ...acme.config,
    },
    env: {
      ...acme.env,
    },
  });
  const now = Math.floor(Date.now() / 1000);
  // The token the agent got for alice at the gateway's issuer (the gateway's audience).
  agentToken = await identity.sign({
    iss: identity.issuer,
    aud: `${publicUrl}/mcp`,
    sub: 'alice',
    scope: 'mcp',
    iat: now,
    exp: now + 600,
  });
}, 30_000);
afterAll(async () => {
  await cluster?.close();
  await Promise.all([upstream?.stop(), identity?.close(), provider?.close(), redis?.close()]);
});

const structured = (result: unknown): Record<string, unknown> =>
  ((result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {}) as Record<
    string,
    unknown
  >;

/** Calls the upstream tool through the balancer as alice, with `count` clients at once; which replicas answered. */
async function callThroughBalancer(
  count: number,
): Promise<{ results: Record<string, unknown>[]; served: Set<string | undefined> }> {
  const clients = await Promise.all(
    Array.from({ length: count }, () => connectRecorded(cluster.url, { token: agentToken })),
  );
  try {
    const results = await Promise.all(clients.map((c) => c.client.callTool({ name: TOOL, arguments: {} })));
    const served = new Set(
      clients.flatMap((c) => c.exchanges.filter((e) => e.rpc === 'tools/call').map((e) => e.backend)),
    );
    return { results: results.map(structured), served };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

const expiresAt = async (): Promise<number> => {
  const listed = await fetch(`${publicUrl}/connections`, {
    headers: { authorization: `Bearer ${agentToken}` },
  });
  const body = (await listed.json()) as { connections: Array<{ expires_at?: string }> };
  return Date.parse(body.connections[0]?.expires_at ?? '');
};

describe('a connection made and used through the load balancer', () => {
  it("connects an OAuth principal whose flow's pages are answered by both replicas", async () => {
    const { results } = await callThroughBalancer(1);
    const [need] = results;
    expect(need).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
    const link = String(need?.url);
    expect(link.startsWith(`${publicUrl}/connect/`)).toBe(true);

    const pages = await new ConnectBrowser(publicUrl).connectWithSignIn(
      link,
      { server: identity, subject: 'alice' },
      { server: provider, subject: 'alice-at-acme' },
    );
    const done = pages.at(-1);
    expect(done?.status).toBe(200);
    expect(done?.text).toContain('Connected: acme');
    // Link, sign-in, the sign-in's callback, the provider's callback: round-robin over both replicas.
    expect(pages.map((p) => p.status)).toEqual([200, 303, 303, 200]);
    expect(new Set(pages.map((p) => p.backend))).toEqual(new Set(['r0', 'r1']));

    const { results: after } = await callThroughBalancer(2);
    expect(after).toEqual([
      { sub: 'alice-at-acme', aud: upstream.url },
      { sub: 'alice-at-acme', aud: upstream.url },
    ]);
  });

  it('refreshes once at the provider for concurrent calls on both replicas when the token is within 60 s of expiry', async () => {
    const expiry = await expiresAt();
    await waitFor(() => Date.now() > expiry - 60_000 + 50, {
      what: 'the token to be within 60 s of expiry',
      timeoutMs: 5_000,
    });
    const before = provider.tokenRequests('refresh_token');
    const { results, served } = await callThroughBalancer(8);
    expect(served).toEqual(new Set(['r0', 'r1']));
    for (const result of results) expect(result).toEqual({ sub: 'alice-at-acme', aud: upstream.url });
    expect(provider.tokenRequests('refresh_token') - before).toBe(1);

    // The refreshed token is the one both replicas use from now on: more calls refresh nothing.
    expect(await expiresAt()).toBeGreaterThan(expiry);
    const again = await callThroughBalancer(4);
    expect(again.served).toEqual(new Set(['r0', 'r1']));
    expect(provider.tokenRequests('refresh_token') - before).toBe(1);
  });
});
