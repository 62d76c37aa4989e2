import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecord } from '../src/index.js';
import { createRedisSessionStore } from '../src/sessions/createRedisSessionStore.js';
import { connections } from './helpers/redisReplicas.js';

let redis: RedisServer;
let pool: ReturnType<typeof connections>;
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
});
afterAll(async () => {
  await pool.closeAll();
  await redis.close();
});

describe('session footprint in Redis', () => {
  it('costs under 2 KiB per session with three unlocked skills, indexes included', async () => {
    const connection = await pool.open('skillgate:');
    const store = createRedisSessionStore({
      connection,
      ttlMs: 3_600_000,
      maxSessions: 100_000,
      maxPerPrincipal: 100_000,
    });
    const n = 1000;
    const before = Number((await connection.run((c) => c.info('memory'))).match(/used_memory:(\d+)/)?.[1]);
    for (let i = 0; i < n; i++) {
      const id = crypto.randomUUID();
      const record: SessionRecord = {
        id,
        principal: `agent-${i % 10}`,
        scopeKey: id,
        client: { name: 'claude-code', version: '2.1.0' },
        protocolVersion: '2025-11-25',
        disclosure: 'namespaced',
        createdAt: Date.now(),
      };
      await store.create(record);
      for (const skill of ['pdf', 'csv-tools', 'web-research']) await store.unlock(id, skill);
    }
    const after = Number((await connection.run((c) => c.info('memory'))).match(/used_memory:(\d+)/)?.[1]);
    const sample = (await connection.run((c) => c.zrange('skillgate:sessions', '0', '0')))[0] ?? '';
    const usage = async (key: string): Promise<number> =>
      Number(await connection.run((c) => c.memory('USAGE', key)));
    const recordBytes = await usage(`skillgate:session:${sample}`);
    const unlockBytes = await usage(`skillgate:unlocked:${sample}`);
    const indexBytes = (await usage('skillgate:sessions')) / n;
    const perSession = (after - before) / n;
    // Printed for docs/scale-out.md; the bound is what the test holds.
    console.log(
      JSON.stringify({
        recordBytes,
        unlockBytes,
        indexBytesPerSession: indexBytes,
        usedMemoryPerSession: perSession,
      }),
    );
    expect(recordBytes + unlockBytes + indexBytes).toBeLessThan(1024);
    expect(perSession).toBeLessThan(2048);
    await store.close();
  });
});
