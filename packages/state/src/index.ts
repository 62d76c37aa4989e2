export { createStateBackend } from './createStateBackend.js';
export { createJobRegistry } from './jobs/createJobRegistry.js';
export type { RedisConnection } from './redis/createRedisConnection.js';
export { createRedisConnection } from './redis/createRedisConnection.js';
export { redisTarget } from './redis/redisTarget.js';
export { createMemorySessionStore } from './sessions/memorySessionStore.js';
export { SessionError } from './sessions/sessionError.js';
export type { SessionRecord, SessionStore, UnlockLimit } from './sessions/types.js';
export { StateError } from './stateError.js';
export type {
  EventBus,
  JobEnd,
  JobRecord,
  JobRegistry,
  JobStatus,
  RateLimiter,
  StateEvent,
  UsageCount,
  UsageEvent,
  UsageFigures,
  UsageStore,
} from './types.js';
