import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { parseArgs } from 'node:util';
import { type Deprecation, loadConfig, type SkillgateConfig } from '@skillgate/config';
import { UsageError } from './usage.js';

/** The options every command accepts (each reads the ones it uses). */
export const OPTIONS = {
  config: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  strict: { type: 'boolean' },
  format: { type: 'string' },
  unlock: { type: 'string', multiple: true },
  disclosure: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  limit: { type: 'string' },
  principal: { type: 'string' },
  revoke: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The parsed options of a command line. */
export type Flags = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** A run's config and what to tell the person about it: renamed keys it used, nothing to serve. */
export interface RunConfig {
  readonly config: SkillgateConfig;
  readonly warnings: readonly string[];
}

const deprecationMessage = (d: Deprecation): string =>
  `config key ${d.key} is deprecated: write ${d.replacement} (docs/configuration.md, "Conventions")`;

// skills.roots has no default (a repository's examples are no one's production skills): say so once.
const NOTHING_TO_SERVE =
  'no skills.roots, sources.list or upstreams configured: no skills (give a ROOT, or --config configs/skillgate.yaml for the bundled examples)';

function warningsOf(config: SkillgateConfig, deprecations: readonly Deprecation[]): string[] {
  const empty =
    config.skills.roots.length === 0 && config.sources.list.length === 0 && config.upstreams.length === 0;
  return [...deprecations.map(deprecationMessage), ...(empty ? [NOTHING_TO_SERVE] : [])];
}

/** The config of a command other than serve, its warnings on stderr (serve logs them: runConfigFrom). */
export async function configFrom(flags: Flags, roots: readonly string[] = []): Promise<SkillgateConfig> {
  const { config, warnings } = await runConfigFrom(flags, roots);
  for (const warning of warnings) process.stderr.write(`skillgate: ${warning}\n`);
  return config;
}

/**
 * The config of a run: the file (or the defaults) with --host/--port applied; ROOT arguments, when given,
 * replace skills.roots.
 */
export async function runConfigFrom(flags: Flags, roots: readonly string[] = []): Promise<RunConfig> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
  }
  const { config, deprecations } = await loadConfig({
    file: flags.config,
    overrides: { host: flags.host, port },
  });
  if (roots.length === 0) return { config, warnings: warningsOf(config, deprecations) };
  // ROOT arguments replace the config's roots for this run: `tools ./my-skills` shows exactly those skills.
  const resolved = roots.map((root) => resolve(root));
  for (const [index, root] of resolved.entries()) {
    const isDir = await stat(root).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) throw new UsageError(`not a folder: ${roots[index]}`);
  }
  // ...and leave the fetched sources out too.
  const run = {
    ...config,
    skills: { ...config.skills, roots: resolved },
    sources: { ...config.sources, list: [] },
  };
  return { config: run, warnings: warningsOf(run, deprecations) };
}
