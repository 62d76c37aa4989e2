import { createRedisConnection, type RedisConnection } from '@skillgate/state';
import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnectFlows } from '../src/flows/connectFlows.js';
import { createKeyRing, decodeKey } from '../src/keys/keyRing.js';
import { createRedisStore } from '../src/store/redisStore.js';
import { createVault } from '../src/store/vault.js';
import { newKey } from './fixtures/keys.js';

let redis: RedisServer;
const connections: RedisConnection[] = [];
const connect = async (keyPrefix = 'sg-test:'): Promise<RedisConnection> => {
  const connection = createRedisConnection({ url: redis.url, keyPrefix });
  connections.push(connection);
  expect(await connection.waitUntilReady(5000)).toBe(true);
  return connection;
};

beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const c of connections) await c.close();
  await redis.close();
});

describe('the Redis store', () => {
  it('is shared by two replicas: one writes, the other reads, lists, counts and deletes', async () => {
    const a = createRedisStore({ redis: await connect('shared:') });
    const b = createRedisStore({ redis: await connect('shared:') });
    await a.put('token:alice', 'github', 's1');
    await a.put('oauth:abc:bob', 'github', 's2');
    await a.put('token:alice', 'acme', 's3');
    expect(await b.get('token:alice', 'github')).toBe('s1');
    expect(await b.counts()).toEqual({ github: 2, acme: 1 });
    expect((await b.list('token:alice')).map((r) => r.provider).sort()).toEqual(['acme', 'github']);
    expect((await b.list()).length).toBe(3);
    expect(await b.delete('token:alice', 'github')).toBe(true);
    expect(await a.get('token:alice', 'github')).toBeUndefined();
    expect(await a.counts()).toEqual({ github: 1, acme: 1 });
  });

  it('replaces a record only if it is unchanged (a re-seal never undoes a refresh)', async () => {
    const store = createRedisStore({ redis: await connect('replace:') });
    await store.put('p', 'github', 'old');
    expect(await store.replace('p', 'github', 'old', 'resealed')).toBe(true);
    expect(await store.replace('p', 'github', 'old', 'stale write')).toBe(false);
    expect(await store.get('p', 'github')).toBe('resealed');
  });

  it('holds sealed records only: the token is nowhere in Redis', async () => {
    const connection = await connect('plain:');
    const vault = createVault(
      createRedisStore({ redis: connection }),
      createKeyRing([decodeKey('k1', newKey())]),
      () => {},
    );
    const token = `ya29.${'z'.repeat(40)}`;
    await vault.put('token:alice', 'google', {
      kind: 'oauth',
      accessToken: token,
      refreshToken: '1//refresh-me',
      connectedAt: 1,
    });
    const keys = await connection.client.keys('plain:*');
    for (const key of keys) {
      const type = await connection.client.type(key);
      const dump =
        type === 'hash'
          ? JSON.stringify(await connection.client.hgetall(key))
          : type === 'set'
            ? JSON.stringify(await connection.client.smembers(key))
            : String(await connection.client.get(key));
      expect(dump).not.toContain(token);
      expect(dump).not.toContain('1//refresh-me');
    }
    expect(keys.length).toBeGreaterThan(0);
  });

  it('hands a flow to one of many concurrent takes across replicas, once', async () => {
    const ring = createKeyRing([decodeKey('k1', newKey())]);
    const a = createConnectFlows(createRedisStore({ redis: await connect('flows:') }), ring, {
      withLogin: false,
    });
    const b = createConnectFlows(createRedisStore({ redis: await connect('flows:') }), ring, {
      withLogin: false,
    });
    const flow = await a.start('token:alice', 'github');
    // The same principal and provider get the pending flow again, on either replica; another principal does not.
    expect((await b.start('token:alice', 'github')).id).toBe(flow.id);
    expect((await b.start('token:bob', 'github')).id).not.toBe(flow.id);
    const taken = await Promise.all([a.take(flow), b.take(flow), a.take(flow), b.take(flow)]);
    expect(taken.filter((t) => t !== undefined).length).toBe(1);
    expect(await b.peek(flow.id)).toBeUndefined();
    // Used up: the next start makes a new one.
    expect((await a.start('token:alice', 'github')).id).not.toBe(flow.id);
  });

  it('lets one replica at a time hold a lock', async () => {
    const a = createRedisStore({ redis: await connect('locks:') });
    const b = createRedisStore({ redis: await connect('locks:') });
    let inside = 0;
    let most = 0;
    const work = async () => {
      inside += 1;
      most = Math.max(most, inside);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
      inside -= 1;
    };
    const options = { ttlMs: 5000, waitMs: 5000 };
    await Promise.all([a, b, a, b, a, b].map((s) => s.withLock('refresh:x', options, work)));
    expect(most).toBe(1);
    // Released: it can be taken at once.
    expect(await a.withLock('refresh:x', { ttlMs: 5000, waitMs: 50 }, async () => 'free')).toBe('free');
  });
});
