/** Options of createRateLimiter: a token bucket per key. */
export interface RateLimiterOptions {
  /** Refill rate; 0 turns limiting off. */
  readonly requestsPerSecond: number;
  readonly burst: number;
  readonly now?: () => number;
}

/** Per-principal token buckets. */
export interface RateLimiter {
  /** Takes one token for key; returns 0 when allowed, else the seconds to wait before retrying. */
  take(key: string): number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Creates a token-bucket rate limiter (one bucket per principal, so one flood cannot starve others). */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? Date.now;
  const buckets = new Map<string, Bucket>();
  const rate = options.requestsPerSecond;
  const capacity = Math.max(1, options.burst);
  return {
    take(key) {
      if (rate <= 0) return 0;
      const t = now();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        bucket = { tokens: capacity, updatedAt: t };
        buckets.set(key, bucket);
      }
      bucket.tokens = Math.min(capacity, bucket.tokens + ((t - bucket.updatedAt) / 1000) * rate);
      bucket.updatedAt = t;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
    },
  };
}
