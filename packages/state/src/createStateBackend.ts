import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { createMemoryEventBus } from './events/createMemoryEventBus.js';
import { createRedisEventBus } from './events/createRedisEventBus.js';
import type { EventBus, StateEvent } from './events/types.js';
import { createMemoryJobStore } from './jobs/createMemoryJobStore.js';
import { createRedisJobStore } from './jobs/createRedisJobStore.js';
import type { JobStore } from './jobs/types.js';
import { createMemoryPinStore } from './pins/createMemoryPinStore.js';
import { createRedisPinStore } from './pins/createRedisPinStore.js';
import type { PinStore } from './pins/types.js';
import { createMemoryRateLimiter } from './rateLimit/createMemoryRateLimiter.js';
import { createRedisRateLimiter } from './rateLimit/createRedisRateLimiter.js';
import type { RateLimiter, RateLimitOptions } from './rateLimit/types.js';
import {
  createRedisConnection,
  type RedisConnection,
  type RoundTrip,
} from './redis/createRedisConnection.js';
import { redisTarget } from './redis/redisTarget.js';
import { createRedisSessionStore } from './sessions/createRedisSessionStore.js';
import { createMemorySessionStore } from './sessions/memorySessionStore.js';
import type { SessionStore } from './sessions/types.js';
import { createMemoryUsageStore } from './usage/createMemoryUsageStore.js';
import { createRedisUsageStore } from './usage/createRedisUsageStore.js';
import type { UsageStore } from './usage/types.js';

/** Options of createStateBackend, resolved from the `state`, `sessions`, `jobs` and `rate_limit` config. */
export interface StateBackendOptions {
  readonly backend: 'memory' | 'redis';
  /** Required with `redis`: the value of the variable named by state.redis_url_env. */
  readonly redisUrl?: string;
  /** state.key_prefix. */
  readonly keyPrefix: string;
  readonly sessions: {
    readonly ttlMs: number;
    readonly maxSessions: number;
    readonly maxPerPrincipal: number;
    /** Called once per expired session (with `redis`, on every replica). */
    readonly onExpire?: (session: { readonly id: string }) => void;
    /** Called on every replica when a session was deleted on any (with `redis`; memory has one replica). */
    readonly onDeleted?: (session: { readonly id: string }) => void;
  };
  readonly jobs: {
    readonly ttlMs: number;
    readonly maxRunningPerOwner: number;
    /** Bytes of each stream's tail kept in a job record (default 65536). */
    readonly maxOutputBytes?: number;
  };
  readonly rateLimit: RateLimitOptions;
  /** This replica's id (default: host name plus a random suffix, new at every start). */
  readonly replica?: string;
  /** Receives background errors (lost connections, failed publishes); never thrown. */
  readonly onError?: (error: Error) => void;
  /** Wraps every round trip to Redis (the gateway's trace spans); absent: nothing is wrapped. */
  readonly roundTrip?: RoundTrip;
  /** Timings, for tests (defaults suit production). */
  readonly timings?: {
    readonly commandTimeoutMs?: number;
    readonly connectTimeoutMs?: number;
    readonly healthIntervalMs?: number;
    readonly heartbeatMs?: number;
    readonly heartbeatTtlMs?: number;
  };
}

/** Everything of the gateway that outlives one request, in memory or shared through Redis. */
export interface StateBackend {
  readonly backend: 'memory' | 'redis';
  readonly replica: string;
  readonly sessions: SessionStore;
  readonly jobs: JobStore;
  /** Notifications across replicas; also a `ServerEventBus` for the SDK's listen streams. */
  readonly events: EventBus<StateEvent>;
  readonly rateLimiter: RateLimiter;
  /** Values the replicas agree on once (the skill sources' resolved commits without a lock file). */
  readonly pins: PinStore;
  /** Skill usage counts (get_info/load_skill, runs, reads, upstream calls, zero-result searches). */
  readonly usage: UsageStore;
  /** The Redis connection, for other stores that share it (the credentials store); absent in memory. */
  readonly redis?: RedisConnection;
  /** False while Redis is unreachable (for /readyz); always true in memory. */
  isHealthy(): boolean;
  /** Resolves true once Redis is reachable (at once in memory), false after timeoutMs. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const DEFAULT_JOB_OUTPUT_BYTES = 65_536;

/** Builds the state backend chosen by `state.backend`. */
export function createStateBackend(options: StateBackendOptions): StateBackend {
  const replica = options.replica ?? `${hostname()}-${randomBytes(4).toString('hex')}`;
  const jobOptions = {
    ttlMs: options.jobs.ttlMs,
    maxRunningPerOwner: options.jobs.maxRunningPerOwner,
    maxOutputBytes: options.jobs.maxOutputBytes ?? DEFAULT_JOB_OUTPUT_BYTES,
    replica,
  };
  if (options.backend === 'memory') {
    const { ttlMs, maxSessions, maxPerPrincipal, onExpire } = options.sessions;
    const sessions = createMemorySessionStore({ ttlMs, maxSessions, maxPerPrincipal, onExpire });
    const jobs = createMemoryJobStore(jobOptions);
    return {
      backend: 'memory',
      replica,
      sessions,
      jobs,
      events: createMemoryEventBus<StateEvent>({ onError: options.onError }),
      rateLimiter: createMemoryRateLimiter(options.rateLimit),
      pins: createMemoryPinStore(),
      usage: createMemoryUsageStore(),
      isHealthy: () => true,
      waitUntilReady: async () => true,
      async close() {
        await jobs.close();
        await sessions.close();
      },
    };
  }
  const url = redisTarget(options.redisUrl);
  const timings = options.timings ?? {};
  const connection = createRedisConnection({
    url,
    keyPrefix: options.keyPrefix,
    commandTimeoutMs: timings.commandTimeoutMs,
    connectTimeoutMs: timings.connectTimeoutMs,
    healthIntervalMs: timings.healthIntervalMs,
    onError: options.onError,
    ...(options.roundTrip === undefined ? {} : { roundTrip: options.roundTrip }),
  });
  const sessions = createRedisSessionStore({ connection, ...options.sessions });
  const jobs = createRedisJobStore({
    connection,
    ...jobOptions,
    heartbeatMs: timings.heartbeatMs,
    heartbeatTtlMs: timings.heartbeatTtlMs,
  });
  const events = createRedisEventBus<StateEvent>({ connection, onError: options.onError });
  return {
    backend: 'redis',
    replica,
    sessions,
    jobs,
    events,
    rateLimiter: createRedisRateLimiter({ connection, ...options.rateLimit }),
    pins: createRedisPinStore(connection),
    usage: createRedisUsageStore({ connection }),
    redis: connection,
    isHealthy: () => connection.isHealthy(),
    waitUntilReady: (timeoutMs) => connection.waitUntilReady(timeoutMs),
    async close() {
      events.close();
      await jobs.close();
      await sessions.close();
      await connection.close();
    },
  };
}
