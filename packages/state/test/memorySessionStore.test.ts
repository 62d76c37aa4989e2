import { waitFor } from '@skillgate/testkit';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore, type SessionRecord } from '../src/index.js';

const record = (id: string, principal = 'anonymous', scopeKey = id): SessionRecord => ({
  id,
  principal,
  scopeKey,
  client: { name: 'test', version: '1' },
  protocolVersion: '2025-06-18',
  disclosure: 'namespaced',
  createdAt: Date.now(),
});

const options = { ttlMs: 60_000, maxSessions: 100, maxPerPrincipal: 100 };

describe('createMemorySessionStore', () => {
  it('stores, finds and deletes sessions', async () => {
    const store = createMemorySessionStore(options);
    await store.create(record('a'));
    expect((await store.get('a'))?.id).toBe('a');
    expect(await store.count()).toBe(1);
    expect(await store.delete('a')).toBe(true);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.delete('a')).toBe(false);
  });

  it('lists the most recently used sessions first, at most the limit', async () => {
    const store = createMemorySessionStore(options);
    for (const id of ['a', 'b', 'c']) await store.create(record(id));
    await store.touch('a');
    expect((await store.recent(10)).map((s) => s.id)).toEqual(['a', 'c', 'b']);
    expect((await store.recent(2)).map((s) => s.id)).toEqual(['a', 'c']);
    expect(await store.recent(0)).toEqual([]);
  });

  it("touches a session together with its scope's unlocks", async () => {
    const store = createMemorySessionStore(options);
    const s3 = record('s3', 'agent-a', 'principal:agent-a');
    await store.create(s3);
    expect((await store.touch('s3'))?.unlocked.size).toBe(0);
    await store.unlock('principal:agent-a', 'pdf');
    expect(await store.touch('s3')).toEqual({ record: s3, unlocked: new Set(['pdf']) });
    expect(await store.touch('missing')).toBeUndefined();
  });

  it('reports only the first unlock of a skill and keeps scopes apart', async () => {
    const store = createMemorySessionStore(options);
    expect((await store.unlock('s1', 'pdf')).added).toBe(true);
    expect((await store.unlock('s1', 'pdf')).added).toBe(false);
    expect((await store.unlock('s2', 'pdf')).added).toBe(true);
    expect([...(await store.unlocked('s1'))]).toEqual(['pdf']);
    expect((await store.unlocked('nobody')).size).toBe(0);
  });

  it('drops a session-scoped unlock set with its session but keeps a principal-scoped one', async () => {
    const store = createMemorySessionStore(options);
    await store.create(record('s1'));
    await store.create(record('s2', 'agent-a', 'principal:agent-a'));
    await store.unlock('s1', 'pdf');
    await store.unlock('principal:agent-a', 'pdf');
    await store.delete('s1');
    await store.delete('s2');
    expect((await store.unlocked('s1')).size).toBe(0);
    expect([...(await store.unlocked('principal:agent-a'))]).toEqual(['pdf']);
  });

  it('refuses sessions past the global cap', async () => {
    const store = createMemorySessionStore({ ...options, maxSessions: 3, maxPerPrincipal: 2 });
    await store.create(record('a1', 'a'));
    await store.create(record('a2', 'a'));
    await store.create(record('b1', 'b'));
    await expect(store.create(record('c1', 'c'))).rejects.toMatchObject({ code: 'SESSION_LIMIT' });
    // A principal at its own cap replaces its longest-idle session even in a full store: the total stays.
    expect((await store.create(record('a3', 'a')))?.id).toBe('a1');
    await store.delete('a2');
    await store.create(record('c1', 'c'));
    expect(await store.count()).toBe(3);
  });

  it("at the per-principal cap ends that principal's longest-idle session and returns it", async () => {
    const store = createMemorySessionStore({ ...options, maxSessions: 10, maxPerPrincipal: 2 });
    await store.create(record('a1', 'a'));
    await store.create(record('b1', 'b'));
    await store.create(record('a2', 'a'));
    await store.unlock('a2', 'pdf');
    // a1 was used last, so a2 is the longest idle of principal a.
    await store.get('a1');
    expect((await store.create(record('a3', 'a')))?.id).toBe('a2');
    expect(await store.get('a2')).toBeUndefined();
    expect((await store.unlocked('a2')).size).toBe(0);
    expect(await store.get('a1')).toBeDefined();
    expect(await store.get('b1')).toBeDefined();
    expect(await store.count()).toBe(3);
    // Below the cap nothing is ended.
    expect(await store.create(record('b2', 'b'))).toBeUndefined();
  });

  it('expires idle sessions, calls onExpire once, and frees the principal slot', async () => {
    const expired: string[] = [];
    const store = createMemorySessionStore({
      ...options,
      ttlMs: 80,
      maxPerPrincipal: 1,
      onExpire: (r) => expired.push(r.id),
    });
    await store.create(record('old', 'a'));
    await store.unlock('old', 'pdf');
    await waitFor(() => expired.length > 0, { what: 'the idle session to expire' });
    expect(await store.get('old')).toBeUndefined();
    expect(expired).toEqual(['old']);
    expect((await store.unlocked('old')).size).toBe(0);
    await store.create(record('new', 'a'));
    await store.close();
  });

  it('keeps a session alive while it is used', async () => {
    // On a clock the test moves: used every 0.6 TTL for 3.6 TTLs, only a refresh on use keeps it.
    let now = 0;
    const store = createMemorySessionStore({ ...options, ttlMs: 1000, now: () => now });
    await store.create(record('busy'));
    for (let i = 0; i < 6; i++) {
      now += 600;
      expect(await store.get('busy')).toBeDefined();
    }
    // And unused for longer than the TTL, it is gone.
    now += 1001;
    expect(await store.get('busy')).toBeUndefined();
    await store.close();
  });

  it('forgets removed skills everywhere and says which scopes changed', async () => {
    const store = createMemorySessionStore(options);
    await store.unlock('s1', 'pdf');
    await store.unlock('s1', 'csv');
    await store.unlock('s2', 'csv');
    const changed = await store.forget(new Set(['pdf']));
    expect(changed).toEqual(['s1']);
    expect([...(await store.unlocked('s1'))]).toEqual(['csv']);
  });
});
