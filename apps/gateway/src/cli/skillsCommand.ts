import type { SkillgateConfig } from '@skillgate/config';
import {
  ANONYMOUS_NAME,
  anonymousPrincipal,
  createAccessPolicy,
  type Principal,
  tokenPrincipal,
} from '../auth/accessPolicy.js';
import { catalogSettings } from '../compose/gatewaySettings.js';
import { createDisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { buildCatalog } from '../reload/catalogSource.js';
import { skillsViewOf } from '../skillsExtension/skillsView.js';
import { configFrom, type Flags } from './configFrom.js';
import { UsageError } from './usage.js';

/** The principal `--token NAME` names: a configured token by name, or `anonymous`; everything without. */
function principalOf(config: SkillgateConfig, name: string | undefined): Principal {
  // Views are cached by skill globs (viewKeyOf): this one shares the view of any principal allowed `*`.
  if (name === undefined) return { id: '*', name: '*', skills: ['*'] };
  if (name === ANONYMOUS_NAME) return anonymousPrincipal(config.auth.anonymous_skills);
  const token = config.auth.tokens.find((t) => t.name === name);
  if (token === undefined) {
    const known = [ANONYMOUS_NAME, ...config.auth.tokens.map((t) => t.name)].join(', ');
    throw new UsageError(`no token named "${name}" in the config (known: ${known})`);
  }
  return tokenPrincipal(name, token.skills);
}

/**
 * The Skills extension entries a caller would get, in skills/list order (docs/skills-extension.md): every
 * published skill, or those token NAME's `skills` globs allow.
 */
export async function skillsCommand(flags: Flags, roots: readonly string[]): Promise<number> {
  const config = await configFrom(flags, roots);
  const principal = principalOf(config, flags.token);
  const catalog = await buildCatalog(catalogSettings(config));
  // The gateway's own rule: the disclosure policy over the access policy's globs, through the same view
  // skills/list pages (no sessions here, so nothing is unlocked).
  const disclosure = createDisclosurePolicy({
    access: createAccessPolicy({ tokens: [], allowAnonymous: true, anonymousSkills: [] }),
    store: { unlocked: async () => new Set() },
    maxInstructionsChars: config.skills.max_instructions_chars,
  });
  const view = skillsViewOf(disclosure, catalog, principal);
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
