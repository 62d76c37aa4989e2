import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { parseArgs } from 'node:util';
import { loadConfig, type SkillgateConfig } from '@skillgate/config';
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

/**
 * The config of a run: the file (or the defaults) with --host/--port applied; ROOT arguments, when given,
 * replace skills.roots.
 */
export async function configFrom(flags: Flags, roots: readonly string[] = []): Promise<SkillgateConfig> {
  const port = flags.port === undefined ? undefined : Number(flags.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${flags.port}"`);
  }
  const { config } = await loadConfig({ file: flags.config, overrides: { host: flags.host, port } });
  if (roots.length === 0) return config;
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
  return { ...config, skills: { ...config.skills, roots: resolved, sources: [] } };
}
