import { waitFor } from '@skillgate/testkit';
import { describe, expect, it } from 'vitest';
import { createMemorySessionStore, type SessionRecord, type SessionStore } from '../src/index.js';

const record = (id: string, principal: string): SessionRecord => ({
  id,
  principal,
  scopeKey: id,
  client: { name: 'test', version: '1' },
  protocolVersion: '2025-06-18',
  disclosure: 'namespaced',
  createdAt: Date.now(),
});

// Issue 10: with max_sessions 200 and a 5 s idle TTL, five cycles of 300 initializes left 600 sessions open.
// The gateway's expiry handler closes the transport, whose close handler deletes the session from the store
// again: the store must tolerate that re-entry and stay within its limit.
describe('regression: idle expiry corrupts the store', () => {
  it('keeps the count within max_sessions over five cycles of 300 creates and frees everything after expiry', async () => {
    const maxSessions = 200;
    const ttlMs = 1000;
    let store: SessionStore | undefined;
    const expired: string[] = [];
    let createdInAll = 0;
    store = createMemorySessionStore({
      ttlMs,
      maxSessions,
      maxPerPrincipal: maxSessions,
      onExpire: (r) => {
        expired.push(r.id);
        // What the gateway does (close the transport, whose onclose deletes the session), synchronously.
        void store?.delete(r.id);
      },
    });
    for (let cycle = 0; cycle < 5; cycle++) {
      let created = 0;
      let refused = 0;
      const started = Date.now();
      for (let i = 0; i < 300; i++) {
        try {
          await store.create(record(`c${cycle}-${i}`, `p${i % 3}`));
          await store.unlock(`c${cycle}-${i}`, 'pdf');
          created++;
        } catch (error) {
          expect(error).toMatchObject({ code: 'SESSION_LIMIT' });
          refused++;
        }
        expect(await store.count()).toBeLessThanOrEqual(maxSessions);
      }
      createdInAll += created;
      // Every cycle gets the whole capacity back (expired sessions free their slots), and no more than it
      // while none of this cycle's sessions can have expired yet.
      expect(created).toBeGreaterThanOrEqual(maxSessions);
      if (Date.now() - started < ttlMs)
        expect({ cycle, created, refused }).toEqual({ cycle, created: maxSessions, refused: 100 });
      await waitFor(async () => (await store.count()) === 0, { what: `cycle ${cycle} sessions to expire` });
      expect((await store.unlocked(`c${cycle}-0`)).size).toBe(0);
    }
    // Each session expired exactly once (a slow cycle, past the TTL, creates more than maxSessions).
    expect(expired.length).toBe(createdInAll);
    expect(new Set(expired).size).toBe(expired.length);
    await store.close();
  });

  it('lets a principal open sessions again once its expired ones are gone', async () => {
    const store = createMemorySessionStore({ ttlMs: 100, maxSessions: 10, maxPerPrincipal: 2 });
    await store.create(record('a1', 'a'));
    await store.create(record('a2', 'a'));
    await store.create(record('b1', 'b'));
    await waitFor(async () => (await store.count()) === 0, { what: 'sessions to expire' });
    // Nothing of principal a is left to end: both new sessions fit beside each other.
    expect(await store.create(record('a3', 'a'))).toBeUndefined();
    expect(await store.create(record('a4', 'a'))).toBeUndefined();
    expect(await store.count()).toBe(2);
    await store.close();
  });
});
