/** Per-principal request budget shared by every replica. */
export interface RateLimiter {
  /**
   * Takes one request (or `cost` requests' worth, at most a full bucket) from key's budget: 0 when allowed,
   * else seconds to wait before retrying (≥ 1).
   */
  take(key: string, cost?: number): Promise<number>;
}

/** Limits of a rate limiter, from the `rate_limit` config section. */
export interface RateLimitOptions {
  /** Sustained rate; 0 turns limiting off. */
  readonly requestsPerSecond: number;
  /** Requests that may arrive at once. */
  readonly burst: number;
}
