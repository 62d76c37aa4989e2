import { freePort, type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createStateBackend,
  type StateBackend,
  type StateBackendOptions,
} from '../src/createStateBackend.js';
import type { StateEvent } from '../src/events/types.js';
import type { SessionRecord } from '../src/index.js';
import { freshPrefix } from './helpers/redisReplicas.js';

const record = (id: string): SessionRecord => ({
  id,
  principal: 'agent-a',
  scopeKey: id,
  client: { name: 'test', version: '1' },
  protocolVersion: '2025-11-25',
  disclosure: 'namespaced',
  createdAt: Date.now(),
});

const base = (overrides: Partial<StateBackendOptions> = {}): StateBackendOptions => ({
  backend: 'redis',
  keyPrefix: freshPrefix(),
  sessions: { ttlMs: 60_000, maxSessions: 100, maxPerPrincipal: 100 },
  jobs: { ttlMs: 60_000, maxRunningPerOwner: 4 },
  rateLimit: { requestsPerSecond: 50, burst: 200 },
  timings: { commandTimeoutMs: 300, connectTimeoutMs: 500, healthIntervalMs: 100 },
  ...overrides,
});

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function redisServer(port?: number): Promise<RedisServer> {
  const server = await startRedisServer({ port });
  cleanups.push(() => server.close());
  return server;
}

function backend(options: StateBackendOptions): StateBackend {
  const state = createStateBackend(options);
  cleanups.push(() => state.close());
  return state;
}

/** Asserts that op rejects with STATE_UNAVAILABLE within boundMs. */
async function unavailableWithin(op: () => Promise<unknown>, boundMs: number): Promise<void> {
  const started = Date.now();
  await expect(op()).rejects.toMatchObject({ code: 'STATE_UNAVAILABLE' });
  expect(Date.now() - started).toBeLessThan(boundMs);
}

describe('createStateBackend', () => {
  it('builds the in-memory backend by default choice, always healthy', async () => {
    const state = backend(base({ backend: 'memory' }));
    expect(state.isHealthy()).toBe(true);
    await state.sessions.create(record('m1'));
    expect(await state.sessions.count()).toBe(1);
    expect(await state.rateLimiter.take('agent-a')).toBe(0);
    const heard: StateEvent[] = [];
    state.events.subscribe((e) => heard.push(e));
    state.events.publish({ kind: 'tools_list_changed' });
    expect(heard).toHaveLength(1);
  });

  it('refuses the redis backend without a URL', () => {
    expect(() => createStateBackend(base())).toThrow(
      expect.objectContaining({ code: 'STATE_MISCONFIGURED' }),
    );
  });

  it('fails fast with STATE_UNAVAILABLE while Redis is down, reports unhealthy, and recovers', async () => {
    const server = await redisServer();
    const options = base({ redisUrl: server.url });
    const state = backend(options);
    const peer = backend({ ...options, replica: 'peer' });
    expect(await state.waitUntilReady(5000)).toBe(true);
    expect(await peer.waitUntilReady(5000)).toBe(true);
    await state.sessions.create(record('s1'));
    await state.sessions.unlock('s1', 'pdf');
    expect(state.isHealthy()).toBe(true);

    await server.stop();
    await waitFor(() => !state.isHealthy(), { what: 'unhealthy after Redis stopped' });
    await unavailableWithin(() => state.sessions.get('s1'), 2000);
    await unavailableWithin(() => state.sessions.create(record('s2')), 2000);
    await unavailableWithin(() => state.sessions.unlocked('s1'), 2000);
    await unavailableWithin(() => state.jobs.get('s1', 'j'), 2000);
    await unavailableWithin(() => state.rateLimiter.take('agent-a'), 2000);
    // Publishing never throws; the event is lost for other replicas while Redis is away.
    state.events.publish({ kind: 'tools_list_changed' });

    await server.start();
    await waitFor(() => state.isHealthy() && peer.isHealthy(), { what: 'healthy again', timeoutMs: 15_000 });
    // The append-only file kept the session and its unlocks.
    expect((await state.sessions.get('s1'))?.protocolVersion).toBe('2025-11-25');
    expect([...(await state.sessions.unlocked('s1'))]).toEqual(['pdf']);
    // Subscriptions came back too.
    const heard: StateEvent[] = [];
    peer.events.subscribe((e) => heard.push(e));
    // Published again on every poll until one arrives: the subscription may come back after the first publish.
    await waitFor(
      () => {
        if (heard.length > 0) return true;
        state.events.publish({ kind: 'tools_list_changed' });
        return false;
      },
      { what: 'an event across replicas after the restart', intervalMs: 50 },
    );
  });

  it('answers within the command timeout when Redis hangs, and recovers when it resumes', async () => {
    const server = await redisServer();
    const state = backend(base({ redisUrl: server.url }));
    expect(await state.waitUntilReady(5000)).toBe(true);
    await state.sessions.create(record('h1'));
    server.pause();
    try {
      await unavailableWithin(() => state.sessions.get('h1'), 1500);
      await waitFor(() => !state.isHealthy(), { what: 'unhealthy while Redis hangs' });
    } finally {
      server.resume();
    }
    await waitFor(() => state.isHealthy(), { what: 'healthy after Redis resumed', timeoutMs: 15_000 });
    expect((await state.sessions.get('h1'))?.id).toBe('h1');
  });

  it('starts while Redis is down and works once it comes up', async () => {
    const port = await freePort();
    const state = backend(base({ redisUrl: `redis://127.0.0.1:${port}` }));
    expect(state.isHealthy()).toBe(false);
    await unavailableWithin(() => state.sessions.count(), 2000);
    await redisServer(port);
    expect(await state.waitUntilReady(15_000)).toBe(true);
    await state.sessions.create(record('late'));
    expect(await state.sessions.count()).toBe(1);
  });
});
