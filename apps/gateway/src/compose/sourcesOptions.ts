import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SkillgateConfig } from '@skillgate/config';
import type { SourceDefinition, SourcesOptions } from '@skillgate/sources';
import { catalogSettings } from './gatewaySettings.js';

/** The cache folder: `skills.cache_dir`, else $XDG_CACHE_HOME/skillgate, else ~/.cache/skillgate. */
function cacheDirOf(config: SkillgateConfig, env: Readonly<Record<string, string | undefined>>): string {
  if (config.skills.cache_dir !== undefined) return config.skills.cache_dir;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && xdg !== '') return join(xdg, 'skillgate');
  return join(env.HOME ?? homedir(), '.cache', 'skillgate');
}

/** The `skills.sources` keys as the sources library's options (shared by the gateway and the CLI). */
export function sourcesOptions(
  config: SkillgateConfig,
  env: Readonly<Record<string, string | undefined>>,
): SourcesOptions {
  const { skills } = config;
  const { roots: _roots, ...load } = catalogSettings(config).load;
  return {
    sources: skills.sources as readonly SourceDefinition[],
    lockFile: skills.lock_file,
    cacheDir: cacheDirOf(config, env),
    timeoutMs: skills.fetch_timeout_seconds * 1000,
    limits: { maxBytes: skills.max_source_bytes, maxFiles: skills.max_source_files },
    env,
    load,
  };
}

/** The values of every source's `token_env` that is set (the logger redacts them). */
export const sourceTokens = (
  config: SkillgateConfig,
  env: Readonly<Record<string, string | undefined>>,
): string[] =>
  config.skills.sources.flatMap((s) => {
    const name = 'token_env' in s ? s.token_env : undefined;
    const value = name === undefined ? undefined : env[name];
    return value === undefined || value === '' ? [] : [value];
  });
