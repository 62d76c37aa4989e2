import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../src/rateLimit/createMemoryRateLimiter.js';
import { createRedisRateLimiter } from '../src/rateLimit/createRedisRateLimiter.js';
import type { RateLimiter } from '../src/types.js';
import { connections, freshPrefix } from './helpers/redisReplicas.js';
import { type RedisServer, startRedisServer } from './helpers/redisServer.js';
import { waitFor } from './helpers/waitFor.js';

let redis: RedisServer;
let pool: ReturnType<typeof connections>;
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
});
afterEach(async () => pool.closeAll());
afterAll(async () => redis.close());

async function takeMany(limiter: RateLimiter, key: string, n: number): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < n; i++) answers.push(await limiter.take(key));
  return answers;
}

for (const kind of ['memory', 'redis'] as const) {
  const open = async (requestsPerSecond: number, burst: number): Promise<RateLimiter> =>
    kind === 'memory'
      ? createMemoryRateLimiter({ requestsPerSecond, burst })
      : createRedisRateLimiter({ connection: await pool.open(freshPrefix()), requestsPerSecond, burst });

  describe(`${kind} rate limiter`, () => {
    it('lets a burst through, then answers with the seconds to wait, per principal', async () => {
      const limiter = await open(5, 10);
      const answers = await takeMany(limiter, 'agent-a', 12);
      expect(answers.slice(0, 10)).toEqual(Array(10).fill(0));
      for (const wait of answers.slice(10)) {
        expect(wait).toBeGreaterThanOrEqual(1);
        expect(wait).toBeLessThanOrEqual(2);
      }
      expect(await limiter.take('agent-b')).toBe(0);
    });

    it('gives the budget back after the wait it announced', async () => {
      const limiter = await open(2, 2);
      await takeMany(limiter, 'p', 2);
      const wait = await limiter.take('p');
      expect(wait).toBeGreaterThanOrEqual(1);
      await waitFor(async () => (await limiter.take('p')) === 0, {
        timeoutMs: wait * 1000 + 3000,
        intervalMs: 200,
        what: 'the budget to come back',
      });
    });

    it('is off at 0 requests per second', async () => {
      const limiter = await open(0, 1);
      expect(await takeMany(limiter, 'p', 50)).toEqual(Array(50).fill(0));
    });
  });
}

describe('redis rate limiter across replicas', () => {
  it('does not multiply a principal budget by the number of replicas', async () => {
    const prefix = freshPrefix();
    const one = createRedisRateLimiter({
      connection: await pool.open(prefix),
      requestsPerSecond: 1,
      burst: 20,
    });
    const two = createRedisRateLimiter({
      connection: await pool.open(prefix),
      requestsPerSecond: 1,
      burst: 20,
    });
    // 60 requests alternating between the replicas, all at once: one budget of 20 in all, not 20 each.
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? one : two).take('agent-a')),
    );
    expect(answers.filter((a) => a === 0).length).toBe(20);
  });

  it('rejects with STATE_UNAVAILABLE, quickly, while Redis is away', async () => {
    const server = await startRedisServer({ appendOnly: false });
    const own = connections(server.url);
    try {
      const limiter = createRedisRateLimiter({
        connection: await own.open(freshPrefix()),
        requestsPerSecond: 10,
        burst: 10,
      });
      expect(await limiter.take('p')).toBe(0);
      await server.stop();
      const started = Date.now();
      await expect(limiter.take('p')).rejects.toMatchObject({ code: 'STATE_UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await own.closeAll();
      await server.close();
    }
  });
});
