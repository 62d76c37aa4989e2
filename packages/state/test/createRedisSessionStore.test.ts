import { type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from '../src/index.js';
import { createRedisConnection, type RedisConnection } from '../src/redis/createRedisConnection.js';
import {
  createRedisSessionStore,
  type RedisSessionStoreOptions,
} from '../src/sessions/createRedisSessionStore.js';

const record = (id: string, principal = 'anonymous', scopeKey = id): SessionRecord => ({
  id,
  principal,
  scopeKey,
  client: { name: 'test', version: '1' },
  protocolVersion: '2025-06-18',
  disclosure: 'namespaced',
  createdAt: Date.now(),
});

let redis: RedisServer;
let prefixCounter = 0;
const opened: { connection: RedisConnection; store: SessionStore }[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis.close();
});
afterEach(async () => {
  for (const { store, connection } of opened.splice(0)) {
    await store.close();
    await connection.close();
  }
});

/** One "replica": its own connections and store, on a key prefix shared with the replicas of the same test. */
async function replica(
  prefix: string,
  options: Partial<Omit<RedisSessionStoreOptions, 'connection'>> = {},
): Promise<SessionStore> {
  const connection = createRedisConnection({ url: redis.url, keyPrefix: prefix });
  expect(await connection.waitUntilReady(5000)).toBe(true);
  const store = createRedisSessionStore({
    connection,
    ttlMs: 60_000,
    maxSessions: 100,
    maxPerPrincipal: 100,
    ...options,
  });
  opened.push({ connection, store });
  return store;
}

const freshPrefix = (): string => `t${++prefixCounter}:`;

describe('createRedisSessionStore', () => {
  it('stores, finds and deletes sessions, with every field', async () => {
    const store = await replica(freshPrefix());
    const a = record('a');
    await store.create(a);
    expect(await store.get('a')).toEqual(a);
    expect(await store.count()).toBe(1);
    expect(await store.delete('a')).toBe(true);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.delete('a')).toBe(false);
    expect(await store.count()).toBe(0);
  });

  it('lists the most recently used sessions of every replica first, at most the limit', async () => {
    const prefix = freshPrefix();
    const one = await replica(prefix);
    const two = await replica(prefix);
    await one.create(record('a'));
    await two.create(record('b'));
    await one.create(record('c'));
    // Using a session makes it the most recent, whichever replica it goes through.
    await waitFor(
      async () => {
        await two.touch('a');
        return (await one.recent(1))[0]?.id === 'a';
      },
      { what: 'a touched session listed first' },
    );
    const all = await one.recent(10);
    expect(all.map((s) => s.id).sort()).toEqual(['a', 'b', 'c']);
    expect(all[0]).toMatchObject({ id: 'a', principal: 'anonymous', client: { name: 'test', version: '1' } });
    expect(await two.recent(0)).toEqual([]);
    await one.delete('c');
    expect((await two.recent(10)).map((s) => s.id).sort()).toEqual(['a', 'b']);
  });

  it('shares sessions and unlocks between replicas', async () => {
    const prefix = freshPrefix();
    const one = await replica(prefix);
    const two = await replica(prefix);
    await one.create(record('s1'));
    expect((await two.get('s1'))?.principal).toBe('anonymous');
    expect((await one.unlock('s1', 'pdf')).added).toBe(true);
    expect((await two.unlock('s1', 'pdf')).added).toBe(false);
    expect([...(await two.unlocked('s1'))]).toEqual(['pdf']);
    expect((await two.unlocked('nobody')).size).toBe(0);
    await two.delete('s1');
    expect(await one.get('s1')).toBeUndefined();
    expect((await one.unlocked('s1')).size).toBe(0);
  });

  it("at the per-principal cap ends the principal's longest-idle session on every replica", async () => {
    const prefix = freshPrefix();
    const atTwo: string[] = [];
    const one = await replica(prefix, { maxPerPrincipal: 2 });
    const two = await replica(prefix, { maxPerPrincipal: 2, onDeleted: (s) => atTwo.push(s.id) });
    await one.create(record('p1', 'a'));
    await one.create(record('p2', 'a'));
    await one.create(record('q1', 'b'));
    await one.unlock('p2', 'pdf');
    // p1 used last: p2 is a's longest idle. Scores are server milliseconds: on a fast machine p2's creation and
    // p1's touch can fall in the same one (a tie, broken by id: p1 first), so wait for Redis's clock to move.
    const peek = createRedisConnection({ url: redis.url, keyPrefix: prefix });
    try {
      expect(await peek.waitUntilReady(5000)).toBe(true);
      const serverMs = async () => {
        const [s, us] = await peek.run((r) => r.time());
        return Number(s) * 1000 + Math.floor(Number(us) / 1000);
      };
      const p2At = await serverMs();
      await waitFor(async () => (await serverMs()) > p2At, { what: "Redis's clock past p2's last use" });
    } finally {
      await peek.close();
    }
    await two.get('p1');
    expect(await two.create(record('p3', 'a'))).toMatchObject({ id: 'p2', principal: 'a', scopeKey: 'p2' });
    expect(await one.get('p2')).toBeUndefined();
    expect((await one.unlocked('p2')).size).toBe(0);
    expect(await one.get('p1')).toBeDefined();
    expect(await one.get('q1')).toBeDefined();
    expect(await one.count()).toBe(3);
    await waitFor(() => atTwo.includes('p2'), { what: 'the eviction announced like a delete' });
  });

  it('tells every replica (the deleting one too) when a session was deleted, and only once', async () => {
    const prefix = freshPrefix();
    const atOne: string[] = [];
    const atTwo: string[] = [];
    const one = await replica(prefix, { onDeleted: (s) => atOne.push(s.id) });
    const two = await replica(prefix, { onDeleted: (s) => atTwo.push(s.id) });
    await one.create(record('d1'));
    expect(await two.delete('d1')).toBe(true);
    // A second delete of a gone session announces nothing.
    expect(await one.delete('d1')).toBe(false);
    await waitFor(() => atOne.length === 1 && atTwo.length === 1, { what: 'the delete on both replicas' });
    await one.create(record('d2'));
    await one.delete('d2');
    await waitFor(() => atOne.length === 2 && atTwo.length === 2, { what: 'the second delete on both' });
    expect([atOne, atTwo]).toEqual([
      ['d1', 'd2'],
      ['d1', 'd2'],
    ]);
  });

  it("touches a session and reads its scope's unlocks in one step, restarting both idle times", async () => {
    const prefix = freshPrefix();
    // A 1-s TTL leaves a loaded machine 900 ms of slack between two touches (as in the keep-alive test below).
    const one = await replica(prefix, { ttlMs: 1000 });
    const two = await replica(prefix, { ttlMs: 1000 });
    const t1 = record('t1', 'agent-a', 'principal:agent-a');
    await one.create(t1);
    expect(await two.touch('t1')).toEqual({ record: t1, unlocked: new Set() });
    await one.unlock('principal:agent-a', 'pdf');
    // Touched more often than the TTL, both the session and its unlocks outlive 2.5 TTLs.
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      const touched = await two.touch('t1');
      expect(touched?.unlocked).toEqual(new Set(['pdf']));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await two.touch('nope')).toBeUndefined();
  });

  it('keeps principal-scoped unlocks after the session ends', async () => {
    const store = await replica(freshPrefix());
    await store.create(record('s2', 'agent-a', 'principal:agent-a'));
    await store.unlock('principal:agent-a', 'pdf');
    await store.delete('s2');
    expect([...(await store.unlocked('principal:agent-a'))]).toEqual(['pdf']);
  });

  it('holds the global and per-principal caps across two replicas under concurrency', async () => {
    const prefix = freshPrefix();
    const one = await replica(prefix, { maxSessions: 20, maxPerPrincipal: 8 });
    const two = await replica(prefix, { maxSessions: 20, maxPerPrincipal: 8 });
    const evicted: string[] = [];
    const attempt = (i: number, principal: string): Promise<string> =>
      (i % 2 === 0 ? one : two).create(record(`${principal}-${i}`, principal)).then(
        (ended) => {
          if (ended !== undefined) evicted.push(ended.id);
          return 'ok';
        },
        (error: { code?: string }) => error.code ?? 'other',
      );
    // At its cap a principal's new session ends its longest-idle one: all 30 open, 8 remain.
    const single = await Promise.all(Array.from({ length: 30 }, (_, i) => attempt(i, 'greedy')));
    expect(single.filter((o) => o === 'ok').length).toBe(30);
    expect(new Set(evicted).size).toBe(22);
    for (const id of evicted) expect(await one.get(id)).toBeUndefined();
    expect(await one.count()).toBe(8);
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(i, `p${i % 10}`)));
    expect(many.filter((o) => o === 'ok').length).toBe(12);
    expect(many.filter((o) => o === 'SESSION_LIMIT').length).toBe(28);
    expect(await one.count()).toBe(20);
    expect(await two.count()).toBe(20);
  });

  it('expires idle sessions on every replica, once, and frees their slots', async () => {
    const prefix = freshPrefix();
    const expiredOne: string[] = [];
    const expiredTwo: string[] = [];
    // The global cap, not the principal's (at which a new session would replace the oldest instead).
    const options = { ttlMs: 300, maxSessions: 3, maxPerPrincipal: 10 };
    const one = await replica(prefix, { ...options, onExpire: (s) => expiredOne.push(s.id) });
    const two = await replica(prefix, { ...options, onExpire: (s) => expiredTwo.push(s.id) });
    for (const id of ['e1', 'e2', 'e3']) await one.create(record(id));
    await one.unlock('e1', 'pdf');
    await expect(two.create(record('e4'))).rejects.toMatchObject({ code: 'SESSION_LIMIT' });
    await waitFor(() => expiredOne.length === 3 && expiredTwo.length === 3, { what: 'expiry on both' });
    expect(expiredOne.sort()).toEqual(['e1', 'e2', 'e3']);
    expect(expiredTwo.sort()).toEqual(['e1', 'e2', 'e3']);
    expect(await two.count()).toBe(0);
    expect(await two.get('e1')).toBeUndefined();
    expect((await two.unlocked('e1')).size).toBe(0);
    for (const id of ['f1', 'f2', 'f3']) await two.create(record(id));
    expect(await one.count()).toBe(3);
  });

  it('keeps a session alive while it is used through any replica', async () => {
    const prefix = freshPrefix();
    // Used every 100 ms for 2.5 TTLs: only a refresh on use keeps it. The TTL leaves a loaded machine 900 ms
    // of slack between two uses (400 ms expired it under a load average of 10-20).
    const one = await replica(prefix, { ttlMs: 1000 });
    const two = await replica(prefix, { ttlMs: 1000 });
    await one.create(record('busy'));
    const until = Date.now() + 2500;
    let turn = 0;
    while (Date.now() < until) {
      expect(await (turn++ % 2 === 0 ? one : two).get('busy')).toBeDefined();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await one.count()).toBe(1);
  });

  it('forgets removed skills in every scope and says which scopes changed', async () => {
    const store = await replica(freshPrefix());
    await store.unlock('s1', 'pdf');
    await store.unlock('s1', 'csv');
    await store.unlock('s2', 'csv');
    await store.unlock('principal:a', 'pdf');
    const changed = await store.forget(new Set(['pdf']));
    expect([...changed].sort()).toEqual(['principal:a', 's1']);
    expect([...(await store.unlocked('s1'))]).toEqual(['csv']);
    expect(await store.forget(new Set(['pdf']))).toEqual([]);
  });

  it('keeps sessions and unlocks across a Redis restart (append-only file)', async () => {
    const prefix = freshPrefix();
    const store = await replica(prefix);
    await store.create(record('kept', 'agent-a'));
    await store.unlock('kept', 'pdf');
    await redis.stop();
    await expect(store.get('kept')).rejects.toMatchObject({ code: 'STATE_UNAVAILABLE' });
    await redis.start();
    await waitFor(async () => (await store.get('kept').catch(() => undefined)) !== undefined, {
      what: 'the session after the restart',
    });
    expect([...(await store.unlocked('kept'))]).toEqual(['pdf']);
    expect(await store.count()).toBe(1);
  });
});
