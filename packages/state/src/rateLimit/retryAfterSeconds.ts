import { RateLimiterRes } from 'rate-limiter-flexible';
import { StateError } from '../stateError.js';

/** Turns a rate-limiter-flexible outcome into take()'s answer: 0, seconds to wait, or STATE_UNAVAILABLE. */
export async function retryAfterSeconds(consume: Promise<unknown>): Promise<number> {
  try {
    await consume;
    return 0;
  } catch (error) {
    if (error instanceof RateLimiterRes) return Math.max(1, Math.ceil(error.msBeforeNext / 1000));
    throw new StateError('STATE_UNAVAILABLE', 'shared rate limit unavailable', { cause: error });
  }
}
