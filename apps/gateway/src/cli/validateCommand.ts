import { catalogSettings } from '../compose/gatewaySettings.js';
import { buildCatalog } from '../reload/catalogSource.js';
import { configFrom, type Flags } from './configFrom.js';
import { upstreamSnapshots } from './upstreamSnapshots.js';

/** `skillgate validate`: every skill problem, one per line; exit 1 on errors. */
export async function validateCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  let config = await configFrom(flags, roots);
  // --strict overrides the config's validation for this run only.
  if (flags.strict === true) config = { ...config, skills: { ...config.skills, validation: 'strict' } };
  // Configured upstreams are connected once, as `upstreams` does: their listings are checked too (tools
  // left out by the listing bounds, bindings that match nothing).
  const settings = catalogSettings(config);
  const catalog = await buildCatalog(
    settings,
    config.upstreams.length === 0 ? settings.configuredUpstreams : await upstreamSnapshots(config),
  );
  for (const p of catalog.problems) {
    const where = p.field === undefined ? p.file : `${p.file} [${p.field}]`;
    process.stdout.write(`${p.severity.padEnd(7)} ${p.code.padEnd(20)} ${where}: ${p.reason}\n`);
  }
  const errors = catalog.problems.filter((p) => p.severity === 'error').length;
  const warnings = catalog.problems.length - errors;
  process.stdout.write(`${catalog.skills.size} skills loaded, ${errors} errors, ${warnings} warnings\n`);
  return errors > 0 ? 1 : 0;
}
