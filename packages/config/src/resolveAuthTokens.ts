import { createHash } from 'node:crypto';
import { ConfigError, type ConfigIssue } from './configError.js';
import type { SkillgateConfig } from './configSchema.js';
import { isLoopbackHost } from './isLoopbackHost.js';

/**
 * The shortest token_env value a gateway bound beyond loopback accepts. A short token is guessed in few tries,
 * and every log line has each token's value cut out, so a one-letter token would also show in the logs as the
 * letters that went missing.
 */
const MIN_EXPOSED_TOKEN_CHARS = 16;

/** A token as the gateway checks it: only its sha256 is kept, compared in constant time. */
export interface ResolvedToken {
  readonly name: string;
  readonly sha256: Buffer;
  readonly skills: readonly string[];
}

/**
 * Hashes each token_env variable's value and decodes each token_sha256; throws CONFIG_INVALID naming
 * every unset variable, and on a non-loopback bind every value shorter than MIN_EXPOSED_TOKEN_CHARS (never a
 * value), so plain tokens are never kept.
 */
export function resolveAuthTokens(
  config: SkillgateConfig,
  env: Readonly<Record<string, string | undefined>>,
): readonly ResolvedToken[] {
  const issues: ConfigIssue[] = [];
  const exposed = !isLoopbackHost(config.server.host);
  const tokens = config.auth.tokens.map((token, i): ResolvedToken => {
    let sha256: Buffer;
    if (token.token_env !== undefined) {
      const value = env[token.token_env];
      if (value === undefined || value === '') {
        issues.push({
          path: `auth.tokens[${i}].token_env`,
          message: `environment variable ${token.token_env} is not set (token "${token.name}")`,
        });
      } else if (exposed && [...value].length < MIN_EXPOSED_TOKEN_CHARS) {
        issues.push({
          path: `auth.tokens[${i}].token_env`,
          message: `environment variable ${token.token_env} holds fewer than ${MIN_EXPOSED_TOKEN_CHARS} characters (token "${token.name}"); server.host ${config.server.host} is not loopback: use a long random token (openssl rand -hex 32)`,
        });
      }
      sha256 = createHash('sha256')
        .update(value ?? '')
        .digest();
    } else {
      // The schema guarantees exactly one of the two, as 64 hex characters.
      sha256 = Buffer.from(token.token_sha256 ?? '', 'hex');
    }
    // A Buffer cannot be frozen; the object around it can.
    return Object.freeze({ name: token.name, sha256, skills: token.skills });
  });
  if (issues.length > 0) {
    const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    throw new ConfigError('CONFIG_INVALID', `auth tokens missing or too short: ${summary}`, { issues });
  }
  return Object.freeze(tokens);
}
