import type { RateLimitOptions } from '../types.js';

/**
 * The fixed window that stands for a token bucket of `requestsPerSecond` and `burst` in rate-limiter-flexible
 * (which counts points per window; Redis windows are whole seconds): `burst` requests per window of
 * burst/rate seconds, so the sustained rate never passes requests_per_second and a fresh principal may send
 * `burst` at once. See docs/scale-out.md for how this differs from a true token bucket.
 */
export function rateWindow(options: RateLimitOptions): {
  readonly points: number;
  readonly duration: number;
} {
  const rate = options.requestsPerSecond;
  const burst = Math.max(1, Math.floor(options.burst));
  const duration = Math.max(1, Math.ceil(burst / rate));
  return { points: Math.max(burst, Math.ceil(rate)), duration };
}
