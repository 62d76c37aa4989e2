import type {
  Catalog,
  CatalogSkill,
  ToolAccess,
  ToolDefinition,
  ToolTarget,
  ToolView,
} from './catalogTypes.js';
import { deepFreeze } from './deepFreeze.js';
import { loadSkillTool, type SharedTools } from './sharedTools.js';
import type { ToolSchemas } from './toolInputs.js';
import { viewCache } from './viewCache.js';

/** The built pieces of a catalog that the views filter. */
export interface ToolViewSource {
  /** Catalog skills by name, in catalog order. */
  readonly entries: ReadonlyMap<string, CatalogSkill>;
  readonly shared: SharedTools;
  readonly schemas: ToolSchemas;
}

/** Namespaced lists with unlocks kept per allowed set at most (then they start over). */
const MAX_UNLOCKED_LISTS = 256;

/**
 * listTools and access of a catalog: which tools each disclosure mode lists and lets a caller call
 * (docs/disclosure.md). Lists that depend only on (mode, allowed) are built once and cached; a namespaced
 * view with unlocks is built once per set of unlocked skills from precomputed arrays.
 */
export function createToolViews(source: ToolViewSource): Pick<Catalog, 'listTools' | 'access'> {
  const { entries, shared, schemas } = source;
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
  // Whether the skill uses upstreams, not whether they have tools right now: the list stays put while an
  // upstream connects or is down (docs/upstreams.md).
  const allowedUsesUpstreams = viewCache((allowed) => allowedEntries(allowed).some((e) => e.usesUpstreams));
  const dispatcher = (allowed: ReadonlySet<string> | undefined) =>
    allowedUsesUpstreams(allowed) ? [shared.dispatcher] : [];
  const getInfoTools = viewCache((allowed) =>
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
      ...dispatcher(allowed),
      ...shared.async,
    ]),
  );
  // Search mode: the same few tools at any catalog size, then the pinned skills' get_info tools.
  const searchList = viewCache((allowed) =>
    Object.freeze([
      ...shared.search,
      ...dispatcher(allowed),
      ...shared.async,
      ...allowedEntries(allowed)
        .filter((e) => e.pinned)
        .map((e) => e.getInfoTool),
    ]),
  );
  const catalogList = viewCache((allowed) =>
    Object.freeze([
      ...getInfoTools(allowed),
      ...shared.catalog,
      ...dispatcher(allowed),
      ...(allowedHasScripts(allowed) ? shared.async : []),
    ]),
  );

  // Namespaced lists with unlocks, per allowed set, by the unlocked skills' names in catalog order.
  const unlockedLists = viewCache(() => new Map<string, readonly ToolDefinition[]>());

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
    switch (view.disclosure) {
      case 'universal':
        return universalList(view.allowed);
      case 'eager':
        return eagerList(view.allowed);
      case 'catalog':
        return catalogList(view.allowed);
      case 'search':
        return searchList(view.allowed);
      case 'namespaced': {
        // With dispatchers the first list is the catalog mode's: get_info tools, dispatchers, async pair.
        const dispatching = view.dispatchers === true;
        const base = dispatching ? catalogList(view.allowed) : getInfoTools(view.allowed);
        const unlocked = unlockedEntries(view);
        if (unlocked.length === 0) return base;
        // Sessions that unlocked the same skills share one list (and the gateway writes its JSON once).
        const lists = unlockedLists(view.allowed);
        const key = `${dispatching ? 'd' : ''}\0${unlocked.map((e) => e.skill.name).join('\0')}`;
        let list = lists.get(key);
        if (list === undefined) {
          const tools = base.concat(...unlocked.map((e) => e.tools));
          const asyncListed = dispatching && allowedHasScripts(view.allowed);
          list = Object.freeze(anyUnlockedScripts(view) && !asyncListed ? tools.concat(shared.async) : tools);
          // Bounded: unlock sets are few in practice, but a client could try many.
          if (lists.size >= MAX_UNLOCKED_LISTS) lists.clear();
          lists.set(key, list);
        }
        return list;
      }
    }
  };

  const access = (target: ToolTarget | undefined, view: ToolView): ToolAccess => {
    if (target === undefined) return 'hidden';
    const mode = view.disclosure;
    const callable = (yes: boolean): ToolAccess => (yes ? 'callable' : 'hidden');
    const dispatching =
      mode === 'universal' ||
      mode === 'catalog' ||
      mode === 'search' ||
      (mode === 'namespaced' && view.dispatchers === true);
    switch (target.kind) {
      case 'search_skills':
        return callable(mode === 'search');
      case 'load_skill':
        return callable(mode === 'universal' || mode === 'search');
      case 'list_skill_files':
        return callable(mode === 'universal');
      case 'read_skill_file':
      case 'run_skill_script':
        return callable(dispatching);
      case 'call_skill_tool':
        return callable(dispatching && allowedUsesUpstreams(view.allowed));
      case 'get_async_status':
      case 'cancel_async':
        if (mode === 'universal' || mode === 'search') return 'callable';
        if (mode === 'eager' || mode === 'catalog') return callable(allowedHasScripts(view.allowed));
        if (view.dispatchers === true && allowedHasScripts(view.allowed)) return 'callable';
        return callable(anyUnlockedScripts(view));
      case 'get_info':
        // Search mode lists only the pinned ones: callable is listed, in every mode.
        if (mode === 'search' && entries.get(target.skill)?.pinned !== true) return 'hidden';
        return callable(mode !== 'universal' && isAllowed(target.skill, view.allowed));
      default:
        // A skill's run/read/call tools: listed in eager mode, and in namespaced mode once the skill is unlocked.
        if (!isAllowed(target.skill, view.allowed)) return 'hidden';
        if (mode === 'eager') return 'callable';
        if (mode !== 'namespaced') return 'hidden';
        return view.unlocked.has(target.skill) ? 'callable' : 'locked';
    }
  };

  return { listTools, access };
}
