import type { Catalog, CatalogSkill, Disclosure, ToolView } from '@skillgate/skills';

/** The surfaces a client can get, as the operator page names them. */
export type Surface = 'namespaced' | 'unlocked' | 'catalog' | 'modern';

/** The tool names one skill puts on each surface (every skill allowed): the operator page's skill rows. */
export type SkillSurfaces = Readonly<Record<Surface, readonly string[]>>;

const NONE: ReadonlySet<string> = new Set();

/** The view of a surface with the given skills unlocked (unlocks only count on the namespaced surface). */
const surfaceView = (surface: Surface, modern: Disclosure, unlocked: ReadonlySet<string>): ToolView => {
  if (surface === 'unlocked') return { disclosure: 'namespaced', unlocked };
  return { disclosure: surface === 'modern' ? modern : surface, unlocked: NONE };
};

const SURFACES: readonly Surface[] = ['namespaced', 'unlocked', 'catalog', 'modern'];

/**
 * The exact tools of one skill on each surface — a 2025-era namespaced session before and after the skill's
 * get_info, catalog mode, and a 2026-07-28 request (`modern`: skills.modern_disclosure) — as the catalog's own
 * access rule decides them, tool by tool (no list of the whole catalog is built per skill).
 */
export function skillSurfaces(catalog: Catalog, entry: CatalogSkill, modern: Disclosure): SkillSurfaces {
  const candidates = [entry.getInfoTool.name, ...entry.tools.map((t) => t.name)];
  const unlocked = new Set([entry.skill.name]);
  const out = {} as Record<Surface, readonly string[]>;
  for (const surface of SURFACES) {
    const view = surfaceView(surface, modern, unlocked);
    out[surface] = candidates.filter((name) => catalog.access(name, view) === 'callable');
  }
  return out;
}

/**
 * The tools of each surface that belong to no skill (read_skill_file, the async pair, ...), with every skill
 * allowed and, on the unlocked surface, every skill unlocked: what the page lists once per surface.
 */
export function sharedSurfaceTools(catalog: Catalog, modern: Disclosure): SkillSurfaces {
  const every = new Set(catalog.skills.keys());
  const out = {} as Record<Surface, readonly string[]>;
  for (const surface of SURFACES) {
    out[surface] = catalog
      .listTools(surfaceView(surface, modern, every))
      .map((t) => t.name)
      .filter((name) => {
        const target = catalog.resolve(name);
        return target === undefined || !('skill' in target);
      });
  }
  return out;
}
