import { gatewaySettings } from '../compose/gatewaySettings.js';
import { buildCatalog } from '../core/catalogSource.js';
import { createSkillsViews } from '../skillsExtension/skillsView.js';
import { configFrom, type Flags } from './configFrom.js';
import { previewPolicy } from './previewPolicy.js';
import { principalOf } from './principalOf.js';
import { sourcesCatalogSettings } from './sourcesCatalogSettings.js';

/**
 * The Skills extension entries a caller would get, in skills/list order (docs/skills-extension.md): every
 * published skill, or those token NAME's `skills` globs allow.
 */
export async function skillsCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  const settings = gatewaySettings(await configFrom(flags, roots));
  const principal = principalOf(settings.auth, flags.token);
  const catalog = await buildCatalog(await sourcesCatalogSettings(settings));
  // The same view skills/list pages (no sessions here, so nothing is unlocked).
  const view = createSkillsViews(previewPolicy(settings.disclosure))(catalog, principal);
  // Why a skill is missing from the list goes to stderr, so stdout stays exactly the entries.
  for (const p of catalog.extension.problems) {
    if (view.mayUse(p.skill ?? '')) process.stderr.write(`${p.severity} ${p.code} ${p.skill}: ${p.reason}\n`);
  }
  if (flags.json === true) {
    process.stdout.write(`${JSON.stringify(view.entries, null, 2)}\n`);
    return 0;
  }
  for (const entry of view.entries) {
    process.stdout.write(`${entry.uri}\n`);
    const resources = entry.resources === 'dynamic' ? [] : entry.resources;
    for (const r of resources) process.stdout.write(`  ${r.digest} ${String(r.size).padStart(9)} ${r.uri}\n`);
  }
  return 0;
}
