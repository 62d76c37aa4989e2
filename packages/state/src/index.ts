export type { JobRegistryOptions } from './createJobRegistry.js';
export { createJobRegistry } from './createJobRegistry.js';
export { createMemoryEventBus } from './createMemoryEventBus.js';
export { createMemoryJobStore } from './createMemoryJobStore.js';
export type { MemoryRateLimiter, MemoryRateLimiterOptions } from './createMemoryRateLimiter.js';
export { createMemoryRateLimiter } from './createMemoryRateLimiter.js';
export type { RedisConnection, RedisConnectionOptions } from './createRedisConnection.js';
export { createRedisConnection } from './createRedisConnection.js';
export type { RedisEventBusOptions } from './createRedisEventBus.js';
export { createRedisEventBus } from './createRedisEventBus.js';
export type { RedisJobStoreOptions } from './createRedisJobStore.js';
export { createRedisJobStore } from './createRedisJobStore.js';
export type { RedisRateLimiterOptions } from './createRedisRateLimiter.js';
export { createRedisRateLimiter } from './createRedisRateLimiter.js';
export type { RedisSessionStoreOptions } from './createRedisSessionStore.js';
export { createRedisSessionStore } from './createRedisSessionStore.js';
export type { StateBackend, StateBackendOptions } from './createStateBackend.js';
export { createStateBackend } from './createStateBackend.js';
export type { MirrorJobOptions } from './mirrorJob.js';
export { mirrorJob } from './mirrorJob.js';
export { redisTarget } from './redisTarget.js';
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
