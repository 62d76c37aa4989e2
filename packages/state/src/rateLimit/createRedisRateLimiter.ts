import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { RedisConnection } from '../redis/createRedisConnection.js';
import type { RateLimiter, RateLimitOptions } from '../types.js';
import { rateWindow } from './rateWindow.js';
import { retryAfterSeconds } from './retryAfterSeconds.js';

/** Options of createRedisRateLimiter. */
export interface RedisRateLimiterOptions extends RateLimitOptions {
  readonly connection: RedisConnection;
}

/**
 * Per-principal rate limits shared by every replica (rate-limiter-flexible's Redis limiter: one atomic
 * counter per principal and window), so N replicas never multiply a principal's budget. While Redis is away
 * take() rejects with STATE_UNAVAILABLE at once rather than guessing with a local count.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  if (options.requestsPerSecond <= 0) return { take: async () => 0 };
  const limiter = new RateLimiterRedis({
    storeClient: options.connection.client,
    keyPrefix: options.connection.key('rate'),
    rejectIfRedisNotReady: true,
    ...rateWindow(options),
  });
  return { take: (key) => retryAfterSeconds(limiter.consume(key)) };
}
