import { createMemorySessionStore, type SessionRecord, type SessionStore } from '@skillgate/state';
import { describe, expect, it } from 'vitest';
import { withUnlockSnapshots } from '../../../src/legacy/withUnlockSnapshots.js';

const record = (id: string, scopeKey = id): SessionRecord => ({
  id,
  principal: 'agent-a',
  scopeKey,
  client: { name: 'test', version: '1' },
  protocolVersion: '2025-11-25',
  disclosure: 'namespaced',
  createdAt: 0,
});

/** A store standing for another replica's view of Redis: writes to `shared` bypass this replica's snapshots. */
function twoViews(maxEntries = 10): { shared: SessionStore; here: SessionStore } {
  const shared = createMemorySessionStore({ ttlMs: 60_000, maxSessions: 100, maxPerPrincipal: 100 });
  // Copies of the sets, as Redis would return them, so the snapshot is not the shared object itself.
  const copying: SessionStore = {
    ...shared,
    touch: async (id) => {
      const touched = await shared.touch(id);
      return touched && { record: touched.record, unlocked: new Set(touched.unlocked) };
    },
    unlocked: async (scopeKey) => new Set(await shared.unlocked(scopeKey)),
  };
  return { shared, here: withUnlockSnapshots(copying, maxEntries) };
}

describe('withUnlockSnapshots', () => {
  it("serves a request the unlocks its touch read, and the next touch sees another replica's unlock", async () => {
    const { shared, here } = twoViews();
    await shared.create(record('s1'));
    await here.touch('s1');
    await shared.unlock('s1', 'pdf');
    // The request that touched before the other replica's unlock keeps its view.
    expect([...(await here.unlocked('s1'))]).toEqual([]);
    await here.touch('s1');
    expect([...(await here.unlocked('s1'))]).toEqual(['pdf']);
  });

  it('writes a first unlock through, answers a repeated one from the snapshot, and forgets on reload', async () => {
    const { shared, here } = twoViews();
    await shared.create(record('s2'));
    await here.touch('s2');
    expect((await here.unlock('s2', 'csv')).added).toBe(true);
    expect([...(await shared.unlocked('s2'))]).toEqual(['csv']);
    expect([...(await here.unlocked('s2'))]).toEqual(['csv']);
    expect((await here.unlock('s2', 'csv')).added).toBe(false);
    expect(await here.forget(new Set(['csv']))).toEqual(['s2']);
    expect([...(await here.unlocked('s2'))]).toEqual([]);
  });

  it('keeps at most maxEntries snapshots; an evicted scope reads the store', async () => {
    const { shared, here } = twoViews(1);
    await shared.create(record('a'));
    await shared.create(record('b'));
    await here.touch('a');
    await here.touch('b');
    await shared.unlock('a', 'pdf');
    // a's snapshot was evicted by b's: its read goes to the store and sees the unlock.
    expect([...(await here.unlocked('a'))]).toEqual(['pdf']);
    expect([...(await here.unlocked('b'))]).toEqual([]);
  });
});
