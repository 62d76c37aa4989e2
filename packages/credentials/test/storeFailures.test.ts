import { createRedisConnection, type RedisConnection } from '@skillgate/state';
import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentials } from '../src/index.js';
import { createRedisStore } from '../src/store/redisStore.js';
import { settingsWith, testEnv } from './fixtures/setup.js';

let redis: RedisServer;
const connections: RedisConnection[] = [];
const connect = async (keyPrefix: string): Promise<RedisConnection> => {
  const connection = createRedisConnection({ url: redis.url, keyPrefix, commandTimeoutMs: 500 });
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

describe('when the store fails', () => {
  it('a lock left by a replica that died is taken once it expires, and waiting past waitMs is STORE_UNAVAILABLE', async () => {
    const connection = await connect('dead:');
    const store = createRedisStore({ redis: connection });
    // A replica took the lock and died without releasing it.
    await connection.client.set('dead:cred:lock:refresh:x', 'someone-else', 'PX', 300);
    await expect(
      store.withLock('refresh:x', { ttlMs: 5000, waitMs: 50 }, async () => 'ran'),
    ).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
    });
    const started = Date.now();
    expect(await store.withLock('refresh:x', { ttlMs: 5000, waitMs: 5000 }, async () => 'ran')).toBe('ran');
    expect(Date.now() - started).toBeLessThan(5000);
    // Released by compare-and-delete: nothing left behind.
    expect(await connection.client.exists('dead:cred:lock:refresh:x')).toBe(0);
  });

  it('answers refused STORE_UNAVAILABLE, not a throw, while Redis is away', async () => {
    const own = await startRedisServer();
    const connection = createRedisConnection({ url: own.url, keyPrefix: 'away:', commandTimeoutMs: 300 });
    connections.push(connection);
    expect(await connection.waitUntilReady(5000)).toBe(true);
    const credentials = createCredentials({
      settings: settingsWith({
        store: 'redis',
        providers: [{ id: 'acme', kind: 'secret', label: 'key' }],
        upstreams: [{ upstream: 'acme', kind: 'provider', provider: 'acme' }],
      }),
      env: testEnv(),
      redis: connection,
    });
    expect(await credentials.headersFor('acme', 'token:alice')).toEqual({
      kind: 'connect',
      provider: 'acme',
    });
    await own.close();
    expect(await credentials.headersFor('acme', 'token:alice')).toMatchObject({
      kind: 'refused',
      code: 'STORE_UNAVAILABLE',
    });
  });
});
