export type { StateBackend, StateBackendOptions } from './createStateBackend.js';
export { createStateBackend } from './createStateBackend.js';
export { createMemoryEventBus } from './events/createMemoryEventBus.js';
export type { RedisEventBusOptions } from './events/createRedisEventBus.js';
export { createRedisEventBus } from './events/createRedisEventBus.js';
export type { JobRegistryOptions } from './jobs/createJobRegistry.js';
export { createJobRegistry } from './jobs/createJobRegistry.js';
export { createMemoryJobStore } from './jobs/createMemoryJobStore.js';
export type { RedisJobStoreOptions } from './jobs/createRedisJobStore.js';
export { createRedisJobStore } from './jobs/createRedisJobStore.js';
export type { MirrorJobOptions } from './jobs/mirrorJob.js';
export { mirrorJob } from './jobs/mirrorJob.js';
export type { MemoryRateLimiter, MemoryRateLimiterOptions } from './rateLimit/createMemoryRateLimiter.js';
export { createMemoryRateLimiter } from './rateLimit/createMemoryRateLimiter.js';
export type { RedisRateLimiterOptions } from './rateLimit/createRedisRateLimiter.js';
export { createRedisRateLimiter } from './rateLimit/createRedisRateLimiter.js';
export type { RedisConnection, RedisConnectionOptions } from './redis/createRedisConnection.js';
export { createRedisConnection } from './redis/createRedisConnection.js';
export { redisTarget } from './redis/redisTarget.js';
export type { RedisSessionStoreOptions } from './sessions/createRedisSessionStore.js';
export { createRedisSessionStore } from './sessions/createRedisSessionStore.js';
export { createMemorySessionStore } from './sessions/memorySessionStore.js';
export { SessionError } from './sessions/sessionError.js';
export type {
  ClientInfo,
  MemorySessionStoreOptions,
  SessionErrorCode,
  SessionRecord,
  SessionStore,
  TouchedSession,
} from './sessions/types.js';
export { StateError } from './stateError.js';
export type {
  EventBus,
  JobEnd,
  JobRecord,
  JobRecordState,
  JobRegistry,
  JobStatus,
  JobStore,
  JobStoreOptions,
  ListChangedEvent,
  NewJob,
  RateLimiter,
  RateLimitOptions,
  ScopeNotifyEvent,
  SessionNotifyEvent,
  StateErrorCode,
  StateEvent,
} from './types.js';
