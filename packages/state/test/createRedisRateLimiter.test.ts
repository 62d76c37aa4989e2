import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../src/rateLimit/createMemoryRateLimiter.js';
import { createRedisRateLimiter } from '../src/rateLimit/createRedisRateLimiter.js';
import type { RateLimiter } from '../src/rateLimit/types.js';
import { connections, freshPrefix } from './helpers/redisReplicas.js';

let redis: RedisServer;
let pool: ReturnType<typeof connections>;
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
});
afterEach(async () => pool.closeAll());
afterAll(async () => redis.close());

/** A clock the test moves by hand (milliseconds, starting where a real epoch clock would be). */
function manualClock(): { now: () => number; set(ms: number): void; advance(ms: number): void } {
  let ms = 1_795_000_000_000;
  return {
    now: () => ms,
    set(value) {
      ms = value;
    },
    advance(delta) {
      ms += delta;
    },
  };
}

async function takeMany(limiter: RateLimiter, key: string, n: number): Promise<number[]> {
  const answers: number[] = [];
  for (let i = 0; i < n; i++) answers.push(await limiter.take(key));
  return answers;
}

interface Limits {
  readonly requestsPerSecond: number;
  readonly burst: number;
  readonly now: () => number;
}

for (const kind of ['memory', 'redis'] as const) {
  const open = async (limits: Limits, prefix = freshPrefix()): Promise<RateLimiter> =>
    kind === 'memory'
      ? createMemoryRateLimiter(limits)
      : createRedisRateLimiter({ connection: await pool.open(prefix), ...limits });

  describe(`${kind} rate limiter (token bucket)`, () => {
    it('never refuses a client steady at exactly requests_per_second, even with a burst of 1', async () => {
      // Rates whose interval is a whole number of microseconds and rates whose interval is not.
      for (const [requestsPerSecond, burst] of [
        [50, 200],
        [50, 1],
        [3, 1],
        [7, 2],
        [0.5, 1],
      ] as const) {
        const clock = manualClock();
        const start = clock.now();
        const limiter = await open({ requestsPerSecond, burst, now: clock.now });
        const refused: number[] = [];
        for (let i = 0; i < 600; i++) {
          clock.set(start + (i * 1000) / requestsPerSecond);
          if ((await limiter.take('steady')) !== 0) refused.push(i);
        }
        expect({ requestsPerSecond, burst, refused }).toEqual({ requestsPerSecond, burst, refused: [] });
      }
    });

    it('lets `burst` through at once, then one more per interval, and answers the wait as Retry-After', async () => {
      const clock = manualClock();
      const limiter = await open({ requestsPerSecond: 0.5, burst: 4, now: clock.now });
      expect(await takeMany(limiter, 'bursty', 4)).toEqual([0, 0, 0, 0]);
      // Empty: the next token is 2 s away.
      expect(await limiter.take('bursty')).toBe(2);
      clock.advance(1999);
      expect(await limiter.take('bursty')).toBe(1);
      clock.advance(1);
      // Exactly when Retry-After said, one token (not a new window's worth).
      expect(await takeMany(limiter, 'bursty', 2)).toEqual([0, 2]);
      // A whole fill time (4 tokens × 2 s) later the full burst is back, and no more.
      clock.advance(8000);
      expect(await takeMany(limiter, 'bursty', 5)).toEqual([0, 0, 0, 0, 2]);
      // Another principal has its own bucket.
      expect(await limiter.take('other')).toBe(0);
    });

    it('never lets a client flooding for a minute past burst + rate × elapsed', async () => {
      const clock = manualClock();
      const limiter = await open({ requestsPerSecond: 5, burst: 10, now: clock.now });
      let allowed = 0;
      // 20 attempts per second for 60 s, four times the rate.
      for (let i = 0; i <= 1200; i++) {
        if ((await limiter.take('flood')) === 0) allowed++;
        clock.advance(50);
      }
      expect(allowed).toBe(10 + 5 * 60);
    });

    it('answers a Retry-After after which the request is taken', async () => {
      const clock = manualClock();
      const limiter = await open({ requestsPerSecond: 0.3, burst: 2, now: clock.now });
      await takeMany(limiter, 'p', 2);
      for (let i = 0; i < 5; i++) {
        const wait = await limiter.take('p');
        expect(wait).toBeGreaterThanOrEqual(1);
        clock.advance(wait * 1000);
        expect(await limiter.take('p')).toBe(0);
      }
    });

    it('charges a costly request several tokens, at most a full bucket, alike in memory and Redis', async () => {
      const clock = manualClock();
      const limiter = await open({ requestsPerSecond: 1, burst: 10, now: clock.now });
      // 4 + 4 of 10 tokens: a third request of 4 waits for the 2 missing tokens (2 s).
      expect([await limiter.take('bytes', 4), await limiter.take('bytes', 4)]).toEqual([0, 0]);
      expect(await limiter.take('bytes', 4)).toBe(2);
      // A cost beyond the bucket is a full bucket: it passes once the bucket is full again.
      clock.advance(10_000);
      expect(await limiter.take('bytes', 1_000)).toBe(0);
      expect(await limiter.take('bytes')).toBe(1);
    });

    it('is off at 0 requests per second', async () => {
      const clock = manualClock();
      const limiter = await open({ requestsPerSecond: 0, burst: 1, now: clock.now });
      expect(await takeMany(limiter, 'p', 50)).toEqual(Array(50).fill(0));
    });
  });
}

describe('memory rate limiter', () => {
  it('forgets buckets that filled up again, so memory holds only recent principals', async () => {
    const clock = manualClock();
    const limiter = createMemoryRateLimiter({ requestsPerSecond: 10, burst: 20, now: clock.now });
    for (let i = 0; i < 10_000; i++) await limiter.take(`principal-${i}`);
    expect(limiter.size).toBe(10_000);
    // 20 tokens at 10 per second: every bucket is full again after 2 s, and the next take sweeps.
    clock.advance(2000);
    await limiter.take('late');
    expect(limiter.size).toBe(1);
  });

  it('treats a clock that went back as an empty bucket, not as hours to wait', async () => {
    const clock = manualClock();
    const limiter = createMemoryRateLimiter({ requestsPerSecond: 1, burst: 3, now: clock.now });
    clock.advance(3_600_000);
    await takeMany(limiter, 'p', 3);
    clock.advance(-3_600_000);
    expect(await limiter.take('p')).toBe(1);
    clock.advance(1000);
    expect(await limiter.take('p')).toBe(0);
  });
});

describe('redis rate limiter across replicas', () => {
  it('shares one bucket between replicas: one burst in all, and the rate in all', async () => {
    const clock = manualClock();
    const prefix = freshPrefix();
    const limits = { requestsPerSecond: 4, burst: 20, now: clock.now };
    const one = createRedisRateLimiter({ connection: await pool.open(prefix), ...limits });
    const two = createRedisRateLimiter({ connection: await pool.open(prefix), ...limits });
    // 60 requests alternating between the replicas, all at once: one budget of 20 in all, not 20 each.
    const burst = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? one : two).take('agent-a')),
    );
    expect(burst.filter((a) => a === 0)).toHaveLength(20);
    // Then each replica sees a client at the full rate: together twice the rate, so half are refused.
    const answers: number[] = [];
    for (let i = 0; i < 40; i++) {
      clock.advance(250);
      answers.push(await one.take('agent-a'), await two.take('agent-a'));
    }
    expect(answers.filter((a) => a === 0)).toHaveLength(40);
    // A client steady at the rate through both replicas in turn is never refused.
    const steady: number[] = [];
    for (let i = 0; i < 40; i++) {
      clock.advance(250);
      steady.push(await (i % 2 === 0 ? one : two).take('agent-b'));
    }
    expect(steady).toEqual(Array(40).fill(0));
  });

  it('starts a bucket afresh when rate_limit changes instead of inheriting the old one', async () => {
    const clock = manualClock();
    const prefix = freshPrefix();
    const before = createRedisRateLimiter({
      connection: await pool.open(prefix),
      requestsPerSecond: 1,
      burst: 2,
      now: clock.now,
    });
    expect(await takeMany(before, 'p', 3)).toEqual([0, 0, 1]);
    // The same Redis, a gateway restarted with a larger burst: the whole new burst at once.
    const after = createRedisRateLimiter({
      connection: await pool.open(prefix),
      requestsPerSecond: 1,
      burst: 5,
      now: clock.now,
    });
    expect(await takeMany(after, 'p', 6)).toEqual([0, 0, 0, 0, 0, 1]);
  });

  it('keeps a bucket only until it is full again (Redis expires it)', async () => {
    const clock = manualClock();
    const prefix = freshPrefix();
    const connection = await pool.open(prefix);
    const limiter = createRedisRateLimiter({ connection, requestsPerSecond: 2, burst: 10, now: clock.now });
    await takeMany(limiter, 'p', 4);
    const keys = await connection.client.keys(`${prefix}rate:*`);
    expect(keys).toHaveLength(1);
    const [key] = keys;
    // 4 tokens taken at 2 per second: full again in 2 s.
    expect(await connection.client.pttl(key ?? '')).toBeGreaterThan(1500);
    expect(await connection.client.pttl(key ?? '')).toBeLessThanOrEqual(2000);
  });

  it("uses Redis's clock when none is given, so replicas with skewed clocks agree", async () => {
    const prefix = freshPrefix();
    const limiter = createRedisRateLimiter({
      connection: await pool.open(prefix),
      requestsPerSecond: 0.1,
      burst: 3,
    });
    const answers = await takeMany(limiter, 'p', 4);
    expect(answers.slice(0, 3)).toEqual([0, 0, 0]);
    expect(answers[3]).toBeGreaterThanOrEqual(9);
    expect(answers[3]).toBeLessThanOrEqual(10);
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
