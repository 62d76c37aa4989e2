import type { Catalog } from '@skillgate/skills';

/** Which skills a reload changed as the Skills extension and prompts show them. */
export interface SkillsExtensionDiff {
  /** Skills whose entry appeared, vanished or changed (frontmatter, files, digests, sizes). */
  readonly entries: ReadonlySet<string>;
  /** Skills whose prompt appeared, vanished or changed name or description (what prompts/list shows). */
  readonly prompts: ReadonlySet<string>;
}

const changedKeys = <T>(
  previous: ReadonlyMap<string, T>,
  next: ReadonlyMap<string, T>,
  key: (value: T) => string,
): Set<string> => {
  const changed = new Set<string>();
  for (const [name, before] of previous) {
    const after = next.get(name);
    if (after === undefined || key(before) !== key(after)) changed.add(name);
  }
  for (const name of next.keys()) if (!previous.has(name)) changed.add(name);
  return changed;
};

const promptsBySkill = (catalog: Catalog) =>
  new Map([...catalog.prompts.values()].map((prompt) => [prompt.skill, prompt]));

/** Compares the extension entries and prompts of two catalogs, skill by skill (once per reload). */
export function diffSkillsExtension(previous: Catalog, next: Catalog): SkillsExtensionDiff {
  return {
    entries: changedKeys(previous.extension.entries, next.extension.entries, (entry) =>
      JSON.stringify(entry),
    ),
    prompts: changedKeys(promptsBySkill(previous), promptsBySkill(next), (p) =>
      JSON.stringify([p.name, p.description]),
    ),
  };
}
