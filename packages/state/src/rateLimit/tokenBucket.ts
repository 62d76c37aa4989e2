import type { RateLimitOptions } from './types.js';

/**
 * A principal's token bucket, kept as one number per principal (GCRA): `tat`, the time in microseconds at
 * which the bucket is full again. One token comes back every `intervalUs`; the bucket holds `capacity`.
 */
export interface TokenBucket {
  /** Microseconds per token: 10^6 / requests_per_second, rounded down so a client at the rate never waits. */
  readonly intervalUs: number;
  /** Tokens a full bucket holds: `burst`, at least 1. */
  readonly capacity: number;
  /**
   * Takes `cost` tokens (default 1, at most `capacity`) at `nowUs` from the bucket whose full time is `tat`
   * (undefined: never used, full).
   */
  take(tat: number | undefined, nowUs: number, cost?: number): TokenTake;
}

/** What take() decided: allowed (`waitUs` 0) or refused for `waitUs`; either way the bucket's new `tat`. */
export interface TokenTake {
  readonly tat: number;
  readonly waitUs: number;
}

/**
 * The bucket `rate_limit` describes. Integer microseconds throughout (as in the Redis script), so the memory
 * and Redis limiters decide alike and no rounding error adds up over a long steady stream.
 */
export function tokenBucket(options: RateLimitOptions): TokenBucket {
  const intervalUs = Math.max(1, Math.floor(1_000_000 / options.requestsPerSecond));
  const capacity = Math.max(1, Math.floor(options.burst));
  const fillUs = intervalUs * capacity;
  return {
    intervalUs,
    capacity,
    take(tat, nowUs, cost = 1) {
      // A full time beyond a whole bucket from now means the clock went back: count the bucket as empty
      // rather than refusing until the clock catches up.
      const from = Math.min(Math.max(tat ?? nowUs, nowUs), nowUs + fillUs);
      const next = from + intervalUs * tokensOf(cost, capacity);
      const waitUs = next - fillUs - nowUs;
      return waitUs > 0 ? { tat: from, waitUs } : { tat: next, waitUs: 0 };
    },
  };
}

/** A cost as whole tokens: at least 1, at most a full bucket (so a costly request can always pass once). */
export function tokensOf(cost: number, capacity: number): number {
  return Math.min(capacity, Math.max(1, Math.floor(cost)));
}

/** take()'s wait as the gateway's answer: 0, or whole seconds to wait (Retry-After), at least 1. */
export function retryAfterSeconds(waitUs: number): number {
  return waitUs <= 0 ? 0 : Math.max(1, Math.ceil(waitUs / 1_000_000));
}
