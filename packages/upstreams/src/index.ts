export { createUpstreamPool } from './createUpstreamPool.js';
export type { UpstreamDefinition, UpstreamPool, UpstreamPoolOptions } from './types.js';
