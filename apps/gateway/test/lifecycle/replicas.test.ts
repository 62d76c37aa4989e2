import { cp, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BACKEND_HEADER, type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT, initializeBody, messagesOf, openSession, post } from '../helpers/rawHttp.js';
import {
  connectRecorded,
  counter,
  type RecordedClient,
  type ReplicaCluster,
  startReplicaCluster,
  waitUntilOut,
} from '../helpers/replicaCluster.js';
import { EXAMPLES_ROOT, textOf, toolNames } from '../helpers/testGateway.js';

// Replicas on the Redis backend behind a real HAProxy in round-robin (no stickiness): any replica serves any
// request of any 2025-era session. Which replica answered is read from X-Skillgate-Backend, never assumed.

const TOKENS = { alice: 'replica-token-alice-0123456789', bob: 'replica-token-bob-0123456789' };
const AUTH = {
  auth: {
    tokens: [
      { name: 'alice', token_env: 'REPLICA_TOKEN_ALICE' },
      { name: 'bob', token_env: 'REPLICA_TOKEN_BOB' },
    ],
  },
};
const ENV = { REPLICA_TOKEN_ALICE: TOKENS.alice, REPLICA_TOKEN_BOB: TOKENS.bob };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let redis: RedisServer;
let work: string;
const clusters: ReplicaCluster[] = [];
const clients: RecordedClient[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  work = await mkdtemp(join(tmpdir(), 'skillgate-replicas-'));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(clusters.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await redis.close();
  await rm(work, { recursive: true, force: true });
});

async function cluster(
  config: Record<string, unknown> = {},
  replicas = 2,
  sessionTransport: 'native' | 'sdk' = 'native',
): Promise<ReplicaCluster> {
  const started = await startReplicaCluster({
    redisUrl: redis.url,
    config,
    replicas,
    env: ENV,
    sessionTransport,
  });
  clusters.push(started);
  return started;
}

async function recorded(url: URL, token?: string): Promise<RecordedClient> {
  const c = await connectRecorded(url, { token });
  clients.push(c);
  return c;
}

const PROBE_RUN = 'skill_gateway-probe_run_echo-args_py';

describe('any replica serves any session', () => {
  it.each(['native', 'sdk'])(
    'runs the whole disclosure flow with requests landing on alternating replicas (%s transport)',
    async (transport) => {
      const c3 = await cluster({}, 2, transport as 'native' | 'sdk');
      const c = await recorded(c3.url);
      const sessionId = c.transport.sessionId ?? '';
      expect(sessionId).not.toBe('');

      const before = await toolNames(c.client);
      expect(before).toContain('skill_gateway-probe_get_info');
      expect(before).not.toContain(PROBE_RUN);
      await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      expect(c.listChanged()).toBe(1);
      expect(await toolNames(c.client)).toContain(PROBE_RUN);
      const run = await c.client.callTool({ name: PROBE_RUN, arguments: { args: ['across', 'replicas'] } });
      expect(JSON.parse((run.structuredContent as { stdout: string }).stdout)).toEqual([
        'across',
        'replicas',
      ]);
      const info = await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      expect(textOf(info)).toContain('gateway-probe');
      // Unlocked once: the repeated get_info (on whichever replica) sends nothing more.
      expect(c.listChanged()).toBe(1);

      // Every POST after initialize was answered by some replica, and both replicas served the session's calls.
      const calls = c.exchanges.filter((e) => e.method === 'POST' && e.rpc !== 'initialize');
      expect(calls.every((e) => e.status < 300)).toBe(true);
      const served = new Set(calls.map((e) => e.backend));
      expect(served).toEqual(new Set(['r0', 'r1']));
      // Consecutive calls alternated at least once each way (round robin, no stickiness).
      const switches = calls.slice(1).filter((e, i) => e.backend !== calls[i]?.backend).length;
      expect(switches).toBeGreaterThanOrEqual(2);
      // The replica that did not open the session took it over from Redis (counted in its metrics).
      const opener = c.exchanges.find((e) => e.rpc === 'initialize')?.backend;
      const other = opener === 'r0' ? 1 : 0;
      expect(await counter(c3.replicas[other]?.base ?? '', 'skillgate_sessions_restored_total')).toBe(1);
      expect(await counter(c3.replicas[1 - other]?.base ?? '', 'skillgate_sessions_restored_total')).toBe(0);
    },
  );

  it('refuses a session to another principal on every replica, exactly like an unknown one', async () => {
    const c3 = await cluster(AUTH);
    const id = await openSession(c3.replicas[0]?.url ?? c3.url, bearer(TOKENS.alice));
    for (const replica of c3.replicas) {
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      const stolen = await post(replica.url, list, { 'mcp-session-id': id, ...bearer(TOKENS.bob) });
      expect(stolen.status).toBe(404);
      const own = await post(replica.url, list, { 'mcp-session-id': id, ...bearer(TOKENS.alice) });
      expect(own.status).toBe(200);
    }
  });

  it('delivers list_changed after an unlock on one replica to the GET stream another replica holds', async () => {
    // Principal scope: an unlock in one session changes the list of the principal's other sessions too.
    const c3 = await cluster({ ...AUTH, sessions: { scope: 'principal' } });
    const [r0, r1] = c3.replicas;
    if (r0 === undefined || r1 === undefined) throw new Error('two replicas expected');
    // Direct connections pin each client's streams: a's GET stream is on r0, b's requests run on r1.
    const a = await recorded(r0.url, TOKENS.alice);
    const b = await recorded(r1.url, TOKENS.alice);
    await waitFor(() => a.exchanges.some((e) => e.method === 'GET' && e.status === 200), {
      what: "a's GET stream",
    });
    await b.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    expect(b.listChanged()).toBe(1);
    await waitFor(() => a.listChanged() === 1, { what: 'list_changed on the stream held by r0' });
    expect(await toolNames(a.client)).toContain(PROBE_RUN);
    // Still once each after a round trip on both.
    await b.client.listTools();
    expect([a.listChanged(), b.listChanged()]).toEqual([1, 1]);
  });

  it("carries a notification published on one replica to the session's GET stream on another", async () => {
    const c3 = await cluster();
    const [r0, r1] = c3.replicas;
    if (r0 === undefined || r1 === undefined) throw new Error('two replicas expected');
    const a = await recorded(r0.url);
    await waitFor(() => a.exchanges.some((e) => e.method === 'GET' && e.status === 200), {
      what: "a's GET stream on r0",
    });
    // r1 has never seen the session: the event crosses Redis pub/sub to r0, which holds the stream.
    r1.gateway?.events.publish({
      kind: 'session_notify',
      sessionId: a.transport.sessionId ?? '',
      message: { method: 'notifications/tools/list_changed' },
    });
    await waitFor(() => a.listChanged() === 1, { what: 'the notification on the stream held by r0' });
    expect(await counter(r1.base, 'skillgate_sessions_restored_total')).toBe(0);
  });

  it.each(['native', 'sdk'])(
    'takes a session over once when many first requests arrive together (%s transport)',
    async (transport) => {
      const c3 = await cluster({}, 2, transport as 'native' | 'sdk');
      const [r0, r1] = c3.replicas;
      if (r0 === undefined || r1 === undefined) throw new Error('two replicas expected');
      const id = await openSession(r0.url);
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          post(r1.url, { jsonrpc: '2.0', id: 100 + i, method: 'tools/list' }, { 'mcp-session-id': id }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        const [body] = await messagesOf(answer);
        expect(body).toMatchObject({ result: { tools: expect.arrayContaining([expect.anything()]) } });
      }
      expect(await counter(r1.base, 'skillgate_sessions_restored_total')).toBe(1);
    },
  );

  it('ends a session on every replica when any replica gets its DELETE', async () => {
    const c3 = await cluster();
    const [r0, r1] = c3.replicas;
    if (r0 === undefined || r1 === undefined) throw new Error('two replicas expected');
    const id = await openSession(r0.url);
    const stream = await fetch(r0.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': id } });
    expect(stream.status).toBe(200);
    // r1 takes the session over, then ends it.
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await post(r1.url, list, { 'mcp-session-id': id })).status).toBe(200);
    const deleted = await fetch(r1.url, { method: 'DELETE', headers: { 'mcp-session-id': id } });
    expect(deleted.status).toBe(200);
    // The GET stream held by r0 ends, and neither replica knows the session any more.
    await stream.text();
    for (const replica of [r0, r1]) {
      expect((await post(replica.url, list, { 'mcp-session-id': id })).status).toBe(404);
    }
  });
});

describe('catalog reloads', () => {
  it('notifies each live stream once when every replica reloads its own copy of the skills', async () => {
    const root = await mkdtemp(join(work, 'skills-'));
    await cp(join(EXAMPLES_ROOT, 'text-stats'), join(root, 'text-stats'), { recursive: true });
    const c3 = await cluster({ skills: { roots: [root], watch: true, watch_debounce_ms: 100 } });
    const c = await recorded(c3.url);
    // Both replicas hold a copy of the session; one of them holds its GET stream.
    for (let i = 0; i < 3; i++) await c.client.listTools();
    expect(new Set(c.exchanges.map((e) => e.backend))).toEqual(new Set(['r0', 'r1']));
    await waitFor(() => c.exchanges.some((e) => e.method === 'GET' && e.status === 200), {
      what: 'GET stream',
    });

    // The new skill appears at once (a rename), so each replica sees one change.
    const staged = await mkdtemp(join(work, 'staged-'));
    await cp(join(EXAMPLES_ROOT, 'csv-tools'), join(staged, 'csv-tools'), { recursive: true });
    await rename(join(staged, 'csv-tools'), join(root, 'csv-tools'));
    for (const replica of c3.replicas) {
      await waitFor(async () => (await counter(replica.base, 'skillgate_catalog_reloads_total')) >= 1, {
        what: 'reload on every replica',
      });
    }
    await waitFor(() => c.listChanged() >= 1, { what: 'list_changed' });
    // Round trips through both replicas: anything still in flight would have arrived by now.
    for (let i = 0; i < 4; i++) expect(await toolNames(c.client)).toContain('skill_csv-tools_get_info');
    expect(c.listChanged()).toBe(1);
  });
});

describe('restarts', () => {
  it('continues a session on the other replica after kill -9 of the replica that opened it', async () => {
    const c3 = await startReplicaCluster({ redisUrl: redis.url, processes: true, workDir: work });
    clusters.push(c3);
    const c = await recorded(c3.url);
    const sessionId = c.transport.sessionId;
    await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const opener = c.exchanges.find((e) => e.rpc === 'initialize')?.backend ?? '';
    const killed = c3.balancer.backends.indexOf(opener);
    expect(killed).toBeGreaterThanOrEqual(0);

    await c3.stop(killed, 'SIGKILL');
    await waitUntilOut(c3.balancer, opener);
    const mark = c.exchanges.length;
    expect(await toolNames(c.client)).toContain(PROBE_RUN);
    const run = await c.client.callTool({ name: PROBE_RUN, arguments: { args: ['survived'] } });
    expect(JSON.parse((run.structuredContent as { stdout: string }).stdout)).toEqual(['survived']);
    expect(c.transport.sessionId).toBe(sessionId);
    const after = c.exchanges.slice(mark).filter((e) => e.method === 'POST');
    expect(after.length).toBeGreaterThanOrEqual(2);
    expect(after.every((e) => e.backend !== opener && e.status === 200)).toBe(true);
  });

  it('keeps sessions and unlocks when every replica restarts (the same session id works)', async () => {
    const c3 = await cluster();
    const c = await recorded(c3.url);
    const sessionId = c.transport.sessionId;
    await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    await c.client.listTools();

    await Promise.all([c3.stop(0), c3.stop(1)]);
    await Promise.all([c3.start(0), c3.start(1)]);
    // The balancer marks a restarted replica up at its next health check, not when it listens.
    await waitFor(async () => (await fetch(`${c3.balancer.base}/healthz`)).status === 200, {
      what: 'a restarted replica back behind the balancer',
    });

    // New processes, nothing in their memory: the session and its unlocks come from Redis.
    expect(await toolNames(c.client)).toContain(PROBE_RUN);
    const run = await c.client.callTool({ name: PROBE_RUN, arguments: { args: ['after restart'] } });
    expect(JSON.parse((run.structuredContent as { stdout: string }).stdout)).toEqual(['after restart']);
    expect(c.transport.sessionId).toBe(sessionId);
    expect(c.listChanged()).toBe(1);
  });

  it('answers 503 (JSON-RPC error, at once) while Redis is down, and serves the same session once it is back', async () => {
    const c3 = await cluster();
    const id = await openSession(c3.url);
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list' };
    expect((await post(c3.url, list, { 'mcp-session-id': id })).status).toBe(200);

    await redis.stop();
    try {
      for (let i = 0; i < 4; i++) {
        // Both replicas (round robin), for a session request and a new session alike.
        const answer = await post(c3.url, list, { 'mcp-session-id': id });
        expect(answer.status).toBe(503);
        const [body] = await messagesOf(answer);
        // Refused before the body is read (the rate limit needs Redis too): no request id to echo.
        expect(body).toMatchObject({
          jsonrpc: '2.0',
          error: { code: -32000, data: { reason: 'STATE_UNAVAILABLE' } },
        });
        expect(answer.headers.get('retry-after')).not.toBeNull();
        const opened = await post(c3.url, initializeBody());
        expect(opened.status).toBe(503);
        await opened.text();
      }
      for (const replica of c3.replicas) {
        await waitFor(async () => (await fetch(`${replica.base}/readyz`)).status === 503, {
          what: 'not ready',
        });
      }
    } finally {
      await redis.start();
    }
    for (const replica of c3.replicas) {
      await waitFor(async () => (await fetch(`${replica.base}/readyz`)).status === 200, {
        what: 'ready again',
        timeoutMs: 15_000,
      });
    }
    const backends = new Set<string | null>();
    for (let i = 0; i < 4; i++) {
      const answer = await post(c3.url, list, { 'mcp-session-id': id });
      expect(answer.status).toBe(200);
      backends.add(answer.headers.get(BACKEND_HEADER));
      await answer.text();
    }
    expect(backends).toEqual(new Set(['r0', 'r1']));
  });
});

describe('a hung Redis', () => {
  it('answers 503 within the command timeout while Redis does not answer (SIGSTOP), then recovers', async () => {
    const c3 = await cluster();
    const id = await openSession(c3.url);
    const list = { jsonrpc: '2.0', id: 9, method: 'tools/list' };
    redis.pause();
    try {
      for (let i = 0; i < 2; i++) {
        // Commands time out after 1 s: the answer comes, as a 503, well before any client would give up.
        const answer = await fetch(c3.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-session-id': id },
          body: JSON.stringify(list),
          signal: AbortSignal.timeout(8000),
        });
        expect(answer.status).toBe(503);
        const [body] = await messagesOf(answer);
        expect(body).toMatchObject({ error: { data: { reason: 'STATE_UNAVAILABLE' } } });
      }
    } finally {
      redis.resume();
    }
    await waitFor(
      async () => (await post(c3.url, list, { 'mcp-session-id': id }).then((r) => r.status)) === 200,
      { what: 'answers again', timeoutMs: 15_000 },
    );
  });
});

describe('shared limits', () => {
  it("does not multiply a principal's rate budget by the number of replicas", async () => {
    // A bucket of 6 that gains one token per 10 s: the test ends long before a seventh.
    const c3 = await cluster({ ...AUTH, rate_limit: { requests_per_second: 0.1, burst: 6 } }, 3);
    const statuses: Array<{ status: number; backend: string | null }> = [];
    for (let i = 0; i < 15; i++) {
      const answer = await post(
        c3.url,
        { jsonrpc: '2.0', id: i, method: 'tools/list' },
        bearer(TOKENS.alice),
      );
      statuses.push({ status: answer.status, backend: answer.headers.get(BACKEND_HEADER) });
      if (answer.status === 429) {
        const [body] = await messagesOf(answer);
        expect(body).toMatchObject({ error: { data: { reason: 'RATE_LIMITED' } } });
        expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      } else await answer.text();
    }
    // Six passed the limiter in all (answered 400: no session), across all three replicas; the rest got 429.
    expect(statuses.filter((s) => s.status !== 429)).toHaveLength(6);
    expect(new Set(statuses.map((s) => s.backend))).toEqual(new Set(['r0', 'r1', 'r2']));
    // Another principal has its own budget.
    const other = await post(c3.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(TOKENS.bob));
    expect(other.status).not.toBe(429);
    await other.text();
  });

  it('holds the session caps across replicas', async () => {
    const c3 = await cluster({ ...AUTH, sessions: { max_sessions: 3, max_per_principal: 2 } });
    const open = async (token: string) => {
      const answer = await post(c3.url, initializeBody(), bearer(token));
      await answer.text();
      return { status: answer.status, backend: answer.headers.get(BACKEND_HEADER) };
    };
    const alice = [await open(TOKENS.alice), await open(TOKENS.alice)];
    expect(alice.map((a) => a.status)).toEqual([200, 200]);
    // The two sessions were opened on different replicas: the caps are shared, not per replica.
    expect(new Set(alice.map((a) => a.backend))).toEqual(new Set(['r0', 'r1']));
    const bob = [await open(TOKENS.bob), await open(TOKENS.bob)];
    expect(bob.map((b) => b.status)).toEqual([200, 503]);
    // At her cap alice's third session ends her longest-idle one (on whichever replica holds it) instead of
    // being refused; the store stays full, so bob is still refused.
    expect((await open(TOKENS.alice)).status).toBe(200);
    expect((await open(TOKENS.bob)).status).toBe(503);
  });
});
