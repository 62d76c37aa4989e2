export { assertSafeBinding } from './assertSafeBinding.js';
export { ConfigError } from './configError.js';
export { configReference } from './configReference.js';
export type {
  LogFormat,
  LogLevel,
  SkillgateConfig,
  UpstreamConfig,
} from './configSchema.js';
export { configSchema } from './configSchema.js';
export { isLoopbackHost } from './isLoopbackHost.js';
export { loadConfig } from './loadConfig.js';
export { parseConfig } from './parseConfig.js';
export type { Deprecation } from './renamedKeys.js';
export { renderConfigReference } from './renderConfigReference.js';
export type { ResolvedToken } from './resolveAuthTokens.js';
export { resolveAuthTokens } from './resolveAuthTokens.js';
