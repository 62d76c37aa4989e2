import { retryAfterSeconds, tokenBucket } from './tokenBucket.js';
import type { RateLimiter, RateLimitOptions } from './types.js';

/** Options of createMemoryRateLimiter. */
export interface MemoryRateLimiterOptions extends RateLimitOptions {
  /** Milliseconds on a clock that never goes back (default performance.now); tests pass their own. */
  readonly now?: () => number;
}

/** A rate limiter in this process; `size` is how many principals' buckets it holds (for tests). */
export interface MemoryRateLimiter extends RateLimiter {
  readonly size: number;
}

/**
 * Per-principal token buckets in this process. A bucket that has filled up again is the same as no bucket,
 * so a sweep (at most once per fill time) drops those: memory holds only principals seen within about two
 * fill times.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions): MemoryRateLimiter {
  const buckets = new Map<string, number>();
  if (options.requestsPerSecond <= 0) return { take: async () => 0, size: 0 };
  const bucket = tokenBucket(options);
  const now = options.now ?? (() => performance.now());
  const sweepEveryUs = Math.max(bucket.intervalUs * bucket.capacity, 1_000_000);
  let nextSweepUs = 0;
  return {
    async take(key, cost) {
      const nowUs = Math.round(now() * 1000);
      if (nowUs >= nextSweepUs) {
        for (const [k, tat] of buckets) if (tat <= nowUs) buckets.delete(k);
        nextSweepUs = nowUs + sweepEveryUs;
      }
      const taken = bucket.take(buckets.get(key), nowUs, cost);
      buckets.set(key, taken.tat);
      return retryAfterSeconds(taken.waitUs);
    },
    get size() {
      return buckets.size;
    },
  };
}
