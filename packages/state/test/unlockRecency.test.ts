import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemorySessionStore, type SessionStore, type UnlockLimit } from '../src/index.js';
import { createRedisConnection, type RedisConnection } from '../src/redis/createRedisConnection.js';
import { createRedisSessionStore } from '../src/sessions/createRedisSessionStore.js';

// Three skills of 4 tools each, room for 8: a third unlock must drop one.
const limit: UnlockLimit = {
  budget: 8,
  costs: new Map([
    ['alpha', 4],
    ['beta', 4],
    ['gamma', 4],
  ]),
};

const options = { ttlMs: 60_000, maxSessions: 100, maxPerPrincipal: 100 };

let redis: RedisServer;
const connections: RedisConnection[] = [];
const stores: SessionStore[] = [];
let prefixCounter = 0;

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const connection of connections) await connection.close();
  await redis.close();
});

const backends: Record<string, () => Promise<SessionStore>> = {
  memory: async () => createMemorySessionStore(options),
  redis: async () => {
    const connection = createRedisConnection({ url: redis.url, keyPrefix: `u${++prefixCounter}:` });
    expect(await connection.waitUntilReady(5000)).toBe(true);
    connections.push(connection);
    const store = createRedisSessionStore({ connection, ...options });
    stores.push(store);
    return store;
  },
};

describe.each(Object.keys(backends))('unlock recency and the unlock limit (%s store)', (backend) => {
  const open = async () => {
    const make = backends[backend];
    if (make === undefined) throw new Error(`no backend ${backend}`);
    return make();
  };

  it('lists unlocked skills least recently used first; a repeated unlock or a use moves a skill last', async () => {
    const store = await open();
    for (const skill of ['alpha', 'beta', 'gamma']) await store.unlock('s1', skill);
    expect([...(await store.unlocked('s1'))]).toEqual(['alpha', 'beta', 'gamma']);
    expect(await store.unlock('s1', 'alpha')).toEqual({ added: false, dropped: [] });
    expect([...(await store.unlocked('s1'))]).toEqual(['beta', 'gamma', 'alpha']);
    await store.use('s1', 'beta');
    expect([...(await store.unlocked('s1'))]).toEqual(['gamma', 'alpha', 'beta']);
    // Using a skill that is not unlocked unlocks nothing.
    await store.use('s1', 'delta');
    await store.use('s2', 'alpha');
    expect([...(await store.unlocked('s1'))]).toEqual(['gamma', 'alpha', 'beta']);
    expect((await store.unlocked('s2')).size).toBe(0);
  });

  it('an unlock past the limit drops the least recently used skill, never the one unlocked', async () => {
    const store = await open();
    expect(await store.unlock('s1', 'alpha', limit)).toEqual({ added: true, dropped: [] });
    expect(await store.unlock('s1', 'beta', limit)).toEqual({ added: true, dropped: [] });
    await store.use('s1', 'alpha');
    expect(await store.unlock('s1', 'gamma', limit)).toEqual({ added: true, dropped: ['beta'] });
    expect([...(await store.unlocked('s1'))]).toEqual(['alpha', 'gamma']);
    // A skill with no tools costs nothing and is never dropped for room.
    expect(await store.unlock('s1', 'notes', limit)).toEqual({ added: true, dropped: [] });
    expect(await store.unlock('s1', 'beta', limit)).toEqual({ added: true, dropped: ['alpha'] });
    expect([...(await store.unlocked('s1'))]).toEqual(['gamma', 'notes', 'beta']);
  });

  it('a skill that alone exceeds the limit is still unlocked, alone', async () => {
    const store = await open();
    const tight: UnlockLimit = { budget: 3, costs: limit.costs };
    await store.unlock('s1', 'alpha', tight);
    expect(await store.unlock('s1', 'beta', tight)).toEqual({ added: true, dropped: ['alpha'] });
    expect([...(await store.unlocked('s1'))]).toEqual(['beta']);
  });
});
