import { homedir } from 'node:os';
import { join } from 'node:path';
import type { SourcesOptions } from '@skillgate/sources';
import type { SourcesSettings } from './sourcesSettings.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The cache folder: `sources.cache_dir`, else $XDG_CACHE_HOME/skillgate, else ~/.cache/skillgate. */
function cacheDirOf(settings: SourcesSettings, env: Env): string {
  if (settings.cacheDir !== undefined) return settings.cacheDir;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && xdg !== '') return join(xdg, 'skillgate');
  return join(env.HOME ?? homedir(), '.cache', 'skillgate');
}

/** The sources settings in this environment as the sources library's options (the gateway's and the CLI's). */
export function sourcesOptions(settings: SourcesSettings, env: Env): SourcesOptions {
  const { sources, lockFile, timeoutMs, limits, load } = settings;
  return { sources, lockFile, cacheDir: cacheDirOf(settings, env), timeoutMs, limits, env, load };
}
