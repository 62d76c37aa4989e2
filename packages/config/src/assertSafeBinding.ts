import { ConfigError } from './configError.js';
import type { SkillgateConfig } from './configSchema.js';
import { isLoopbackHost } from './isLoopbackHost.js';
import type { ResolvedToken } from './resolveAuthTokens.js';

/** Throws CONFIG_INVALID (path auth.allow_anonymous) for a non-loopback bind with no tokens, no OAuth and no opt-in. */
export function assertSafeBinding(config: SkillgateConfig, tokens: readonly ResolvedToken[]): void {
  // Secure by default: anyone who can reach a public address would otherwise run the skills' scripts.
  if (
    isLoopbackHost(config.server.host) ||
    tokens.length > 0 ||
    config.auth.oauth !== undefined ||
    config.auth.allow_anonymous
  )
    return;
  const message = `server.host ${config.server.host} is not loopback and no auth.tokens are configured; add a token or set auth.allow_anonymous: true`;
  throw new ConfigError('CONFIG_INVALID', message, { issues: [{ path: 'auth.allow_anonymous', message }] });
}
