import type {
  Catalog,
  CatalogSkill,
  Disclosure,
  ToolDefinition,
  ToolTarget,
  ToolView,
} from '@skillgate/skills';
import type { SessionStore, UnlockLimit } from '@skillgate/state';
import { type AccessPolicy, type Principal, viewKeyOf } from '../auth/accessPolicy.js';
import { createCatalogMemo } from '../core/catalogMemo.js';
import type { Audience } from './audience.js';
import { infoTextOf, instructionsText } from './disclosureTexts.js';
import { createReloadImpact, type ReloadImpact } from './reloadImpact.js';

/** What the policy says about one called tool. */
export type CallDecision =
  | {
      readonly kind: 'callable';
      readonly target: ToolTarget;
      /** A skill to mark most recently used in the caller's unlocks (its tool is being used; the cap applies). */
      readonly used?: string;
    }
  /** A run/read tool of a skill the caller may use but has not unlocked yet (namespaced only). */
  | { readonly kind: 'locked'; readonly target: ToolTarget; readonly skill: CatalogSkill }
  /** Nonexistent, or not the caller's: answered identically so that nothing can be probed. */
  | { readonly kind: 'unknown' };

/** What get_info / load_skill does for this audience. */
export interface UnlockEffect {
  /** Record the skill as unlocked (only where it changes what the caller sees). */
  readonly record: boolean;
  /** Send tools/list_changed on the calling request's stream after the first unlock. */
  readonly notify: boolean;
  /**
   * Where unlocking every usable skill would take the list past `tools.max_listed`: what the unlocked skills
   * may add, so that an unlock drops the least recently used ones first (docs/disclosure.md, the cap).
   */
  readonly limit?: UnlockLimit;
}

/** Options of createDisclosurePolicy. */
export interface DisclosurePolicyOptions {
  readonly access: AccessPolicy;
  /** Where unlocks are read (only namespaced 2025-era sessions have any). */
  readonly store: Pick<SessionStore, 'unlocked'>;
  /** Characters the whole initialize instructions may take (`skills.max_instructions_chars`). */
  readonly maxInstructionsChars: number;
  /** Most tools a first list may hold before the principal gets `search` instead (`tools.max_listed`). */
  readonly maxListed: number;
  /** Told once per (catalog, mode, allow-list) when a principal's list switched to `search`. */
  readonly onSwitchToSearch?: (event: SearchSwitch) => void;
}

/** A principal whose first list would have been longer than `tools.max_listed` (docs/disclosure.md). */
export interface SearchSwitch {
  readonly principal: string;
  /** The configured mode it would have got. */
  readonly configured: Disclosure;
  /** How many tools (and, in universal mode, skills in load_skill) that mode would have listed. */
  readonly listed: number;
  readonly maxListed: number;
}

/**
 * The one rule of who sees and may call what (docs/disclosure.md): listing, calling, instructions and
 * reload notifications all ask this module, for both eras and every mode. Its texts are disclosureTexts.ts,
 * what a reload does to each audience is reloadImpact.ts.
 */
export interface DisclosurePolicy extends ReloadImpact {
  /** The catalog view of an audience (the one place a ToolView is built). */
  view(catalog: Catalog, audience: Audience): Promise<ToolView>;
  /**
   * The mode a principal actually gets in a catalog: the configured one, or `search` when that would list
   * more than `tools.max_listed` tools at first (docs/disclosure.md, the cap).
   */
  modeOf(catalog: Catalog, principal: Principal, configured: Disclosure): Disclosure;
  /** The tools/list of an audience. */
  listTools(catalog: Catalog, audience: Audience): Promise<readonly ToolDefinition[]>;
  /**
   * The tools/list a principal gets in a disclosure mode with the given skills unlocked, without a session:
   * what `skillgate tools --token NAME` prints and the operator page shows.
   */
  previewTools(
    catalog: Catalog,
    principal: Principal,
    disclosure: Disclosure,
    unlocked?: ReadonlySet<string>,
  ): readonly ToolDefinition[];
  /** Whether an audience may call a tool now (its name resolved once by the caller; undefined: no such tool). */
  decideCall(catalog: Catalog, audience: Audience, target: ToolTarget | undefined): Promise<CallDecision>;
  /**
   * A skill by name if the principal may use it (see, read, run, get through the Skills extension); else
   * undefined, exactly as if it did not exist.
   */
  usableSkill(catalog: Catalog, principal: Principal, skill: string): CatalogSkill | undefined;
  /** Names of the skills the principal may use, in catalog order. */
  usableSkillNames(catalog: Catalog, principal: Principal): readonly string[];
  /** The skill names the principal may use; undefined means every skill of the catalog. */
  usableSkillSet(catalog: Catalog, principal: Principal): ReadonlySet<string> | undefined;
  /** What reading a skill's instructions does for this audience. */
  unlockEffect(catalog: Catalog, audience: Audience, entry: CatalogSkill): UnlockEffect;
  /** The get_info text this audience gets for a skill. */
  infoText(catalog: Catalog, entry: CatalogSkill, audience: Audience): string;
  /** The server instructions: how disclosure works here, then the summary of the usable skills. */
  instructions(catalog: Catalog, audience: Pick<Audience, 'disclosure' | 'principal'>): string;
  /** `private` when the principal's token filters what it sees (a shared cache must not reuse it). */
  cacheScope(catalog: Catalog, principal: Principal): 'public' | 'private';
}

const NO_UNLOCKS: ReadonlySet<string> = new Set();

/** A namespaced principal's list under tools.max_listed when unlocking every usable skill would pass it. */
interface NamespacedCap {
  /** What the unlocked skills may add (their costs: their own tool counts). */
  readonly limit: UnlockLimit;
  /** Skills whose own tools exceed what the cap leaves: disclosed as catalog mode does, never unlocked. */
  readonly oversized: ReadonlySet<string>;
  /** True when there are any: the first list then holds the catalog mode's dispatchers too. */
  readonly dispatchers: boolean;
  /** The first list's length with those dispatchers (the mode falls back to search past the cap). */
  readonly firstListed: number;
}

/** Builds the disclosure policy over the access policy (allow-lists) and the session store (unlocks). */
export function createDisclosurePolicy(options: DisclosurePolicyOptions): DisclosurePolicy {
  const { access, store, maxListed } = options;
  // Instructions are equal for every audience of one (catalog, mode, principal): render each once.
  const instructionsMemo = createCatalogMemo<string>();
  const modeMemo = createCatalogMemo<Disclosure>();

  const modeOf = (catalog: Catalog, principal: Principal, configured: Disclosure): Disclosure => {
    if (configured === 'search') return configured;
    return modeMemo(catalog, `${configured}\0${viewKeyOf(principal)}`, () => {
      const allowed = access.allowedSkills(principal, catalog);
      const first = catalog.listTools({ disclosure: configured, unlocked: NO_UNLOCKS, allowed });
      // Universal lists few tools but one line per skill in load_skill's description: those count too.
      const skills = configured === 'universal' ? (allowed?.size ?? catalog.skills.size) : 0;
      // Namespaced with a skill too big for the cap lists the catalog mode's dispatchers from the start.
      const cap = configured === 'namespaced' ? namespacedCap(catalog, principal) : undefined;
      const listed = Math.max(first.length, cap?.firstListed ?? 0) + skills;
      if (listed <= maxListed) return configured;
      options.onSwitchToSearch?.({ principal: principal.name, configured, listed, maxListed });
      return 'search';
    });
  };
  // Namespaced with every usable skill unlocked could pass the cap: the unlocked skills get a budget, what is
  // left under the cap once the get_info tools and the async pair (listed with the first script) are counted.
  // A skill whose own tools exceed that budget could never be listed within the cap (the store kept the skill
  // just unlocked whatever its cost: 150 tools past a cap of 100 made a list of 154): it is disclosed as catalog
  // mode does instead, and the catalog mode's dispatchers join the first list, out of the budget.
  const capMemo = createCatalogMemo<NamespacedCap | undefined>();
  const namespacedCap = (catalog: Catalog, principal: Principal): NamespacedCap | undefined =>
    capMemo(catalog, viewKeyOf(principal), () => {
      const allowed = access.allowedSkills(principal, catalog);
      const base = catalog.listTools({ disclosure: 'namespaced', unlocked: NO_UNLOCKS, allowed }).length;
      const all = catalog.listTools({ disclosure: 'eager', unlocked: NO_UNLOCKS, allowed }).length;
      if (all <= maxListed) return undefined;
      const costs = new Map<string, number>();
      for (const entry of catalog.skills.values()) {
        const name = entry.skill.name;
        if (entry.tools.length > 0 && (allowed === undefined || allowed.has(name))) {
          costs.set(name, entry.tools.length);
        }
      }
      const asyncPair = all - base - [...costs.values()].reduce((sum, n) => sum + n, 0);
      const budget = maxListed - base - asyncPair;
      if ([...costs.values()].every((cost) => cost <= budget)) {
        return {
          limit: { budget: Math.max(0, budget), costs },
          oversized: NO_UNLOCKS,
          dispatchers: false,
          firstListed: base,
        };
      }
      // The catalog mode's first list: get_info tools, dispatchers and (with scripts) the async pair.
      const firstListed = catalog.listTools({ disclosure: 'catalog', unlocked: NO_UNLOCKS, allowed }).length;
      const left = maxListed - firstListed;
      const oversized = new Set([...costs].filter(([, cost]) => cost > left).map(([name]) => name));
      const fitting = new Map([...costs].filter(([name]) => !oversized.has(name)));
      return {
        limit: { budget: Math.max(0, left), costs: fitting },
        oversized,
        dispatchers: true,
        firstListed,
      };
    });
  const unlockLimit = (catalog: Catalog, principal: Principal): UnlockLimit | undefined =>
    namespacedCap(catalog, principal)?.limit;
  const oversized = (catalog: Catalog, audience: Audience, skill: string): boolean =>
    unlocksMatter(catalog, audience) &&
    namespacedCap(catalog, audience.principal)?.oversized.has(skill) === true;

  const modeOfAudience = (catalog: Catalog, audience: Pick<Audience, 'disclosure' | 'principal'>) =>
    modeOf(catalog, audience.principal, audience.disclosure);

  // Only namespaced 2025-era sessions have unlocks; elsewhere the list never depends on what the caller did.
  const unlocksMatter = (catalog: Catalog, audience: Audience) =>
    audience.era === 'legacy' && modeOfAudience(catalog, audience) === 'namespaced';

  const view = async (catalog: Catalog, audience: Audience): Promise<ToolView> => {
    const matters = unlocksMatter(catalog, audience);
    const cap = matters ? namespacedCap(catalog, audience.principal) : undefined;
    const dispatchers = cap?.dispatchers === true;
    let unlocked = matters ? await store.unlocked(audience.scopeKey) : NO_UNLOCKS;
    // A skill unlocked before a reload made it too big for the cap is not listed (nor callable) any more.
    if (dispatchers && [...unlocked].some((name) => cap.oversized.has(name))) {
      unlocked = new Set([...unlocked].filter((name) => !cap.oversized.has(name)));
    }
    return {
      disclosure: modeOfAudience(catalog, audience),
      unlocked,
      allowed: access.allowedSkills(audience.principal, catalog),
      ...(dispatchers ? { dispatchers } : {}),
    };
  };

  const usableSkill = (catalog: Catalog, principal: Principal, skill: string): CatalogSkill | undefined => {
    const entry = catalog.skills.get(skill);
    if (entry === undefined) return undefined;
    const allowed = access.allowedSkills(principal, catalog);
    return allowed === undefined || allowed.has(skill) ? entry : undefined;
  };

  const reload = createReloadImpact({ access, store, modeOf: modeOfAudience });

  return {
    view,
    modeOf,
    async listTools(catalog, audience) {
      return catalog.listTools(await view(catalog, audience));
    },
    previewTools(catalog, principal, disclosure, unlocked = NO_UNLOCKS) {
      const mode = modeOf(catalog, principal, disclosure);
      return catalog.listTools({
        disclosure: mode,
        unlocked: mode === 'namespaced' ? unlocked : NO_UNLOCKS,
        allowed: access.allowedSkills(principal, catalog),
      });
    },
    touches: reload.touches,
    async decideCall(catalog, audience, target) {
      if (target === undefined) return { kind: 'unknown' };
      const decision = catalog.access(target, await view(catalog, audience));
      if (decision === 'callable') {
        // Using an unlocked skill's tool makes it the most recently used, where the cap can drop skills.
        const capped =
          'skill' in target &&
          target.kind !== 'get_info' &&
          unlocksMatter(catalog, audience) &&
          unlockLimit(catalog, audience.principal) !== undefined;
        return capped ? { kind: 'callable', target, used: target.skill } : { kind: 'callable', target };
      }
      if (decision === 'locked' && 'skill' in target) {
        const skill = catalog.skills.get(target.skill);
        if (skill !== undefined) return { kind: 'locked', target, skill };
      }
      return { kind: 'unknown' };
    },
    usableSkill,
    usableSkillNames(catalog, principal) {
      const allowed = access.allowedSkills(principal, catalog);
      const names = [...catalog.skills.keys()];
      return allowed === undefined ? names : names.filter((name) => allowed.has(name));
    },
    usableSkillSet: (catalog, principal) => access.allowedSkills(principal, catalog),
    unlockEffect(catalog, audience, entry) {
      // A skill too big for the cap unlocks nothing: its get_info names the dispatcher calls instead.
      if (oversized(catalog, audience, entry.skill.name)) return { record: false, notify: false };
      const matters = unlocksMatter(catalog, audience);
      const limit = matters ? unlockLimit(catalog, audience.principal) : undefined;
      return limit === undefined
        ? { record: matters, notify: matters }
        : { record: true, notify: true, limit };
    },
    infoText(catalog, entry, audience) {
      if (oversized(catalog, audience, entry.skill.name)) return infoTextOf(entry, 'catalog');
      return infoTextOf(entry, modeOfAudience(catalog, audience));
    },
    instructions(catalog, audience) {
      const mode = modeOfAudience(catalog, audience);
      return instructionsMemo(catalog, `${mode}\0${audience.principal.id}`, () => {
        const allowed = access.allowedSkills(audience.principal, catalog);
        const entries = [...catalog.skills.values()].filter(
          (e) => allowed === undefined || allowed.has(e.skill.name),
        );
        return instructionsText(mode, entries, options.maxInstructionsChars);
      });
    },
    cacheScope(catalog, principal) {
      return access.allowedSkills(principal, catalog) === undefined ? 'public' : 'private';
    },
    affectedBy: reload.affectedBy,
  };
}
