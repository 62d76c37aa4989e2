import { ConfigError } from '@skillgate/config';
import { redisTarget, StateError } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import { missingSkillRoots } from '../reload/missingSkillRoots.js';

/** A missing or non-Redis state URL as a config error naming the variable (docs/scale-out.md). */
function checkRedisUrl(name: string, env: Readonly<Record<string, string | undefined>>): void {
  try {
    redisTarget(env[name]);
  } catch (error) {
    if (!(error instanceof StateError)) throw error;
    const message = `${name}: ${error.message}`;
    throw new ConfigError('CONFIG_INVALID', message, {
      issues: [{ path: 'state.redis_url_env', message }],
      cause: error,
    });
  }
}

/** What start-up checks before anything starts. */
export interface StartupSettings {
  /** `state.redis_url_env` when `state.backend` is redis, else undefined (nothing to check). */
  readonly redisUrlEnv: string | undefined;
  /** `skills.roots`. */
  readonly skillRoots: readonly string[];
  /** `skills.allow_missing_roots`: a missing root is a warning, not a start-up error. */
  readonly allowMissingRoots: boolean;
}

/**
 * The start-up checks that need the environment or the disk, before anything that holds the process open
 * starts (scripts, watchers): a bad Redis URL or a missing skill root is a config error, never a retry loop.
 */
export async function checkStartup(
  settings: StartupSettings,
  env: Readonly<Record<string, string | undefined>>,
  log: FastifyBaseLogger,
): Promise<void> {
  if (settings.redisUrlEnv !== undefined) checkRedisUrl(settings.redisUrlEnv, env);
  const missing = await missingSkillRoots(settings.skillRoots);
  if (missing.length > 0 && !settings.allowMissingRoots) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `skill root not found: ${missing.map((m) => m.root).join(', ')}`,
      {
        issues: missing.map((m) => ({
          path: `skills.roots[${m.index}]`,
          message: `${m.root} ${m.reason} (relative roots resolve against the config file's folder; skills.allow_missing_roots: true starts without it)`,
        })),
      },
    );
  }
  for (const m of missing) log.warn({ root: m.root }, `skill root ${m.reason}: serving no skills from it`);
}
