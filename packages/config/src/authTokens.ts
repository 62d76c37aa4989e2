import { createHash } from 'node:crypto';
import { ConfigError } from './configError.js';
import type { SkillgateConfig } from './configSchema.js';

/** A token as the gateway checks it: only its sha256 is kept. */
export interface ResolvedToken {
  readonly name: string;
  readonly sha256: Buffer;
  readonly skills: readonly string[];
}

/** Reads token_env variables (never echoing their values) and decodes token_sha256 entries. */
export function resolveAuthTokens(
  config: SkillgateConfig,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedToken[] {
  return config.auth.tokens.map((token, i) => {
    if (token.token_env !== undefined) {
      const value = env[token.token_env];
      if (value === undefined || value === '') {
        throw new ConfigError(
          'CONFIG_INVALID',
          `auth.tokens[${i}].token_env: environment variable ${token.token_env} is not set`,
          {
            issues: [
              {
                path: `auth.tokens[${i}].token_env`,
                message: `environment variable ${token.token_env} is not set`,
              },
            ],
          },
        );
      }
      return { name: token.name, sha256: createHash('sha256').update(value).digest(), skills: token.skills };
    }
    return { name: token.name, sha256: Buffer.from(token.token_sha256 ?? '', 'hex'), skills: token.skills };
  });
}

/** True for loopback addresses and names (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** Refuses a non-loopback binding without tokens unless auth.allow_anonymous is set (secure by default). */
export function assertSafeBinding(config: SkillgateConfig, tokens: readonly ResolvedToken[]): void {
  if (isLoopbackHost(config.server.host) || tokens.length > 0 || config.auth.allow_anonymous) return;
  const message = `server.host ${config.server.host} is not loopback and no auth.tokens are configured; add a token or set auth.allow_anonymous: true`;
  throw new ConfigError('CONFIG_INVALID', message, { issues: [{ path: 'auth.allow_anonymous', message }] });
}
