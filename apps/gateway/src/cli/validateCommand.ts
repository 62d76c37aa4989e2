import { gatewaySettings } from '../compose/gatewaySettings.js';
import { buildCatalog } from '../core/catalogSource.js';
import { configFrom, type Flags } from './configFrom.js';
import { sourcesCatalogSettings } from './sourcesCatalogSettings.js';
import { upstreamSnapshots } from './upstreamSnapshots.js';

/** `skillgate validate`: every skill problem, one per line; exit 1 on errors. */
export async function validateCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  let settings = gatewaySettings(await configFrom(flags, roots));
  // --strict overrides the config's validation for this run only: of the roots' skills and the sources'.
  if (flags.strict === true) {
    const strict = <T extends { readonly load: object }>(part: T): T => ({
      ...part,
      load: { ...part.load, validation: 'strict' },
    });
    settings = { ...settings, catalog: strict(settings.catalog), sources: strict(settings.sources) };
  }
  // Configured upstreams are connected once, as `upstreams` does: their listings are checked too (tools
  // left out by the listing bounds, bindings that match nothing).
  const catalogSettings = await sourcesCatalogSettings(settings);
  const catalog = await buildCatalog(
    catalogSettings,
    settings.upstreams.length === 0 ? catalogSettings.configuredUpstreams : await upstreamSnapshots(settings),
  );
  for (const p of catalog.problems) {
    const where = p.field === undefined ? p.file : `${p.file} [${p.field}]`;
    process.stdout.write(`${p.severity.padEnd(7)} ${p.code.padEnd(20)} ${where}: ${p.reason}\n`);
  }
  // Each fetched source: how many skills it gives and at which pin (docs/sources.md).
  const bySource = new Map<string, { commit: string; skills: number }>();
  for (const { skill } of catalog.skills.values()) {
    if (skill.origin === undefined) continue;
    const seen = bySource.get(skill.origin.source) ?? { commit: skill.origin.commit, skills: 0 };
    bySource.set(skill.origin.source, { ...seen, skills: seen.skills + 1 });
  }
  for (const [id, { commit, skills }] of bySource) {
    process.stdout.write(`source  ${id}: ${skills} skills at ${commit}\n`);
  }
  const errors = catalog.problems.filter((p) => p.severity === 'error').length;
  const warnings = catalog.problems.length - errors;
  process.stdout.write(`${catalog.skills.size} skills loaded, ${errors} errors, ${warnings} warnings\n`);
  return errors > 0 ? 1 : 0;
}
