import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RateLimiter, RateLimitOptions } from '../types.js';
import { rateWindow } from './rateWindow.js';
import { retryAfterSeconds } from './retryAfterSeconds.js';

/** Per-principal rate limits in this process (rate-limiter-flexible's memory limiter). */
export function createMemoryRateLimiter(options: RateLimitOptions): RateLimiter {
  if (options.requestsPerSecond <= 0) return { take: async () => 0 };
  const limiter = new RateLimiterMemory({ keyPrefix: 'rate', ...rateWindow(options) });
  return { take: (key) => retryAfterSeconds(limiter.consume(key)) };
}
