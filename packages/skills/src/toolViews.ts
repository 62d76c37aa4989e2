import { deepFreeze } from './deepFreeze.js';
import { loadSkillTool, type SharedTools } from './sharedTools.js';
import type { ToolSchemas } from './toolSchemas.js';
import type { Catalog, CatalogSkill, ToolDefinition, ToolTarget, ToolView } from './types.js';
import { viewCache } from './viewCache.js';

/** The built pieces of a catalog that the views filter. */
export interface ToolViewSource {
  /** Catalog skills by name, in catalog order. */
  readonly entries: ReadonlyMap<string, CatalogSkill>;
  readonly targets: ReadonlyMap<string, ToolTarget>;
  readonly shared: SharedTools;
  readonly schemas: ToolSchemas;
}

/**
 * listTools and isVisible of a catalog (DESIGN §4). Lists that depend only on (mode, allowed) are built
 * once and cached; a namespaced view with unlocks concatenates precomputed arrays.
 */
export function createToolViews(source: ToolViewSource): Pick<Catalog, 'listTools' | 'isVisible'> {
  const { entries, targets, shared, schemas } = source;
  const order = new Map([...entries.keys()].map((name, index) => [name, index]));
  const withScripts = new Set(
    [...entries.values()].filter((e) => e.skill.files.some((f) => f.isScript)).map((e) => e.skill.name),
  );
  const isAllowed = (skill: string, allowed: ReadonlySet<string> | undefined) =>
    allowed === undefined || allowed.has(skill);
  const allowedEntries = viewCache((allowed) =>
    [...entries.values()].filter((e) => isAllowed(e.skill.name, allowed)),
  );
  const allowedHasScripts = viewCache((allowed) =>
    allowedEntries(allowed).some((e) => withScripts.has(e.skill.name)),
  );
  const namespacedBase = viewCache((allowed) =>
    Object.freeze(allowedEntries(allowed).map((e) => e.getInfoTool)),
  );
  const eagerList = viewCache((allowed) => {
    const tools = allowedEntries(allowed).flatMap((e) => [e.getInfoTool, ...e.tools]);
    return Object.freeze(allowedHasScripts(allowed) ? [...tools, ...shared.async] : tools);
  });
  const universalList = viewCache((allowed) =>
    Object.freeze([
      deepFreeze(loadSkillTool(allowedEntries(allowed), schemas)),
      ...shared.universal,
      ...shared.async,
    ]),
  );

  /** Unlocked skills the view may use, in catalog order. */
  const unlockedEntries = (view: ToolView): CatalogSkill[] => {
    const found: CatalogSkill[] = [];
    for (const name of view.unlocked) {
      const entry = entries.get(name);
      if (entry !== undefined && isAllowed(name, view.allowed)) found.push(entry);
    }
    return found.sort((a, b) => (order.get(a.skill.name) ?? 0) - (order.get(b.skill.name) ?? 0));
  };
  const anyUnlockedScripts = (view: ToolView): boolean => {
    for (const name of view.unlocked) if (withScripts.has(name) && isAllowed(name, view.allowed)) return true;
    return false;
  };

  const listTools = (view: ToolView): readonly ToolDefinition[] => {
    if (view.disclosure === 'universal') return universalList(view.allowed);
    if (view.disclosure === 'eager') return eagerList(view.allowed);
    const base = namespacedBase(view.allowed);
    const unlocked = unlockedEntries(view);
    if (unlocked.length === 0) return base;
    const tools = base.concat(...unlocked.map((e) => e.tools));
    return Object.freeze(anyUnlockedScripts(view) ? tools.concat(shared.async) : tools);
  };

  const isVisible = (toolName: string, view: ToolView): boolean => {
    const target = targets.get(toolName);
    if (target === undefined) return false;
    switch (target.kind) {
      case 'load_skill':
      case 'list_skill_files':
      case 'read_skill_file':
      case 'run_skill_script':
        return view.disclosure === 'universal';
      case 'get_async_status':
      case 'cancel_async':
        if (view.disclosure === 'universal') return true;
        return view.disclosure === 'eager' ? allowedHasScripts(view.allowed) : anyUnlockedScripts(view);
      case 'get_info':
        return view.disclosure !== 'universal' && isAllowed(target.skill, view.allowed);
      default:
        if (view.disclosure === 'universal' || !isAllowed(target.skill, view.allowed)) return false;
        return view.disclosure === 'eager' || view.unlocked.has(target.skill);
    }
  };

  return { listTools, isVisible };
}
