import type { Catalog } from '@skillgate/skills';

/** Which skills a reload touched, split by what a caller could see of it. */
export interface CatalogDiff {
  /** Added, removed, or with a new get_info definition: visible to every caller that may use the skill. */
  readonly listed: ReadonlySet<string>;
  /** Skills whose run/read tools or texts changed: visible where those tools are listed. */
  readonly tools: ReadonlySet<string>;
  readonly removed: ReadonlySet<string>;
}

/** Compares two catalogs skill by skill (definitions are small, and this runs once per reload). */
export function diffCatalogs(previous: Catalog, next: Catalog): CatalogDiff {
  const listed = new Set<string>();
  const tools = new Set<string>();
  const removed = new Set<string>();
  for (const [name, before] of previous.skills) {
    const after = next.skills.get(name);
    if (after === undefined) {
      removed.add(name);
      listed.add(name);
      continue;
    }
    if (JSON.stringify(before.getInfoTool) !== JSON.stringify(after.getInfoTool)) listed.add(name);
    if (
      JSON.stringify(before.tools) !== JSON.stringify(after.tools) ||
      before.getInfoText !== after.getInfoText
    ) {
      tools.add(name);
    }
  }
  for (const name of next.skills.keys()) if (!previous.skills.has(name)) listed.add(name);
  return { listed, tools, removed };
}

/** True when nothing a caller could see changed. */
export const isEmptyDiff = (diff: CatalogDiff): boolean => diff.listed.size === 0 && diff.tools.size === 0;
