import type { SkillgateConfig } from '@skillgate/config';
import type { SourceDefinition, SourcesOptions } from '@skillgate/sources';
import { catalogSettings } from './catalogSettings.js';

/** `sources.list` and their keys (docs/sources.md), before the environment is read. */
export interface SourcesSettings
  extends Pick<SourcesOptions, 'sources' | 'lockFile' | 'timeoutMs' | 'limits' | 'load'> {
  /** `sources.cache_dir`; undefined: $XDG_CACHE_HOME/skillgate, else ~/.cache/skillgate. */
  readonly cacheDir: string | undefined;
  /** `sources.follow.interval_seconds`: how often branch heads are checked (0: never). */
  readonly followIntervalSeconds: number;
  /** The sources' `token_env` names (their values are secrets the logger redacts). */
  readonly tokenEnvNames: readonly string[];
}

/** The `sources.list` keys as settings (shared by the gateway and the CLI). */
export function sourcesSettings(config: SkillgateConfig): SourcesSettings {
  const { sources } = config;
  const { roots: _roots, ...load } = catalogSettings(config).load;
  return {
    sources: sources.list as readonly SourceDefinition[],
    lockFile: sources.lock_file,
    cacheDir: sources.cache_dir,
    timeoutMs: sources.fetch_timeout_seconds * 1000,
    limits: { maxBytes: sources.max_bytes, maxFiles: sources.max_files },
    load,
    followIntervalSeconds: sources.follow.interval_seconds,
    tokenEnvNames: sources.list.flatMap((s) =>
      'token_env' in s && s.token_env !== undefined ? [s.token_env] : [],
    ),
  };
}
