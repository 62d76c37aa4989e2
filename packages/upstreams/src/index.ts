export { createUpstreamPool } from './createUpstreamPool.js';
export type {
  UpstreamCallOptions,
  UpstreamCallResult,
  UpstreamDefinition,
  UpstreamFailureReason,
  UpstreamLogger,
  UpstreamPool,
  UpstreamPoolOptions,
  UpstreamProgress,
  UpstreamSnapshot,
  UpstreamState,
  UpstreamTool,
} from './types.js';
