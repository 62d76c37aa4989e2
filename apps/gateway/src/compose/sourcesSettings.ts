import type { SkillgateConfig } from '@skillgate/config';
import type { SourceDefinition, SourcesOptions } from '@skillgate/sources';
import { catalogSettings } from './catalogSettings.js';

/** `skills.sources` and their keys (docs/sources.md), before the environment is read. */
export interface SourcesSettings
  extends Pick<SourcesOptions, 'sources' | 'lockFile' | 'timeoutMs' | 'limits' | 'load'> {
  /** `skills.cache_dir`; undefined: $XDG_CACHE_HOME/skillgate, else ~/.cache/skillgate. */
  readonly cacheDir: string | undefined;
  /** `skills.follow.interval_seconds`: how often branch heads are checked (0: never). */
  readonly followIntervalSeconds: number;
  /** The sources' `token_env` names (their values are secrets the logger redacts). */
  readonly tokenEnvNames: readonly string[];
}

/** The `skills.sources` keys as settings (shared by the gateway and the CLI). */
export function sourcesSettings(config: SkillgateConfig): SourcesSettings {
  const { skills } = config;
  const { roots: _roots, ...load } = catalogSettings(config).load;
  return {
    sources: skills.sources as readonly SourceDefinition[],
    lockFile: skills.lock_file,
    cacheDir: skills.cache_dir,
    timeoutMs: skills.fetch_timeout_seconds * 1000,
    limits: { maxBytes: skills.max_source_bytes, maxFiles: skills.max_source_files },
    load,
    followIntervalSeconds: skills.follow.interval_seconds,
    tokenEnvNames: skills.sources.flatMap((s) =>
      'token_env' in s && s.token_env !== undefined ? [s.token_env] : [],
    ),
  };
}
