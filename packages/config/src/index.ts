export { assertSafeBinding } from './assertSafeBinding.js';
export type { ConfigErrorCode, ConfigErrorOptions, ConfigIssue } from './configError.js';
export { ConfigError } from './configError.js';
export type { ConfigKeyDoc } from './configReference.js';
export { configReference } from './configReference.js';
export type {
  ClientProfile,
  LogFormat,
  LogLevel,
  OAuthConfig,
  SkillgateConfig,
  TokenConfig,
  UpstreamConfig,
} from './configSchema.js';
export { configSchema } from './configSchema.js';
export { isLoopbackHost } from './isLoopbackHost.js';
export type { LoadConfigOptions, LoadedConfig } from './loadConfig.js';
export { loadConfig } from './loadConfig.js';
export type { ParseConfigOptions } from './parseConfig.js';
export { parseConfig } from './parseConfig.js';
export { renderConfigReference } from './renderConfigReference.js';
export type { ResolvedToken } from './resolveAuthTokens.js';
export { resolveAuthTokens } from './resolveAuthTokens.js';
