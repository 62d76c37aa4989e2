import type { RedisConnection } from '../redis/createRedisConnection.js';
import { redisScript } from '../redis/redisScript.js';
import { retryAfterSeconds, tokenBucket, tokensOf } from './tokenBucket.js';
import type { RateLimiter, RateLimitOptions } from './types.js';

/** Options of createRedisRateLimiter. */
export interface RedisRateLimiterOptions extends RateLimitOptions {
  readonly connection: RedisConnection;
  /** Milliseconds since the epoch, for tests; by default Redis's own clock (TIME), one for every replica. */
  readonly now?: () => number;
}

// tokenBucket.take() in Lua, on the bucket's full time in integer microseconds (exact in Lua's doubles until
// the year 2255). KEYS[1] bucket; ARGV: interval µs, capacity, now µs or '' for the server's clock.
// Answers 0 (taken; the key lives until the bucket is full again) or the microseconds to wait.
const TAKE = redisScript(`
local interval = tonumber(ARGV[1])
local fill = interval * tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if now == nil then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local from = tonumber(redis.call('GET', KEYS[1]) or '0')
if from < now then from = now end
if from > now + fill then
  -- The clock went back: the bucket counts as empty from now on.
  redis.call('SET', KEYS[1], string.format('%d', now + fill), 'PX', math.ceil(fill / 1000))
  return interval
end
local nxt = from + interval * tonumber(ARGV[4])
local wait = nxt - fill - now
if wait > 0 then return wait end
redis.call('SET', KEYS[1], string.format('%d', nxt), 'PX', math.ceil((nxt - now) / 1000))
return 0
`);

/**
 * Per-principal token buckets shared by every replica: one Lua script per request, atomic in Redis, so N
 * replicas never multiply a principal's budget. The bucket's shape is part of its key, so a gateway started
 * with another `rate_limit` starts from full buckets instead of inheriting old ones. While Redis is away
 * take() rejects with STATE_UNAVAILABLE at once rather than guessing with a local count.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  if (options.requestsPerSecond <= 0) return { take: async () => 0 };
  const bucket = tokenBucket(options);
  const { connection, now } = options;
  const shape = `${bucket.intervalUs}us${bucket.capacity}`;
  return {
    async take(key, cost = 1) {
      const nowArg = now === undefined ? '' : Math.round(now() * 1000);
      const wait = await connection.script(
        TAKE,
        [connection.key('rate', shape, key)],
        [bucket.intervalUs, bucket.capacity, nowArg, tokensOf(cost, bucket.capacity)],
      );
      return retryAfterSeconds(Number(wait));
    },
  };
}
