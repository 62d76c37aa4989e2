import type { Catalog, Disclosure } from '@skillgate/skills';
import type { SessionStore } from '@skillgate/state';
import type { AccessPolicy, Principal } from '../auth/accessPolicy.js';
import type { CatalogDiff } from '../core/catalogDiff.js';
import type { Audience } from './audience.js';

const NO_UNLOCKS: ReadonlySet<string> = new Set();

/** Options of createReloadImpact: the rule's parts a reload is judged by. */
export interface ReloadImpactOptions {
  readonly access: Pick<AccessPolicy, 'allowedSkills'>;
  /** Where a namespaced session's unlocks are read. */
  readonly store: Pick<SessionStore, 'unlocked'>;
  /** The mode an audience gets in a catalog (the rule's, with the cap applied). */
  readonly modeOf: (catalog: Catalog, audience: Pick<Audience, 'disclosure' | 'principal'>) => Disclosure;
}

/** Who hears of a reload: what a catalog change does to what principals and sessions see. */
export interface ReloadImpact {
  /** Whether a reload that changed `changed` (skill names) touched a skill the principal may use before or after. */
  touches(previous: Catalog, next: Catalog, principal: Principal, changed: ReadonlySet<string>): boolean;
  /** Whether a reload (previous -> next, diff) changed what a legacy session lists. */
  affectedBy(diff: CatalogDiff, previous: Catalog, next: Catalog, audience: Audience): Promise<boolean>;
}

/** The reload side of the disclosure rule (docs/disclosure.md, reloads). */
export function createReloadImpact(options: ReloadImpactOptions): ReloadImpact {
  const { access, store, modeOf } = options;

  /** Whether the names of a mode's tools differ between two catalogs (lists without unlocks, cached per view). */
  const sharedToolsChanged = (previous: Catalog, next: Catalog, principal: Principal, mode: Disclosure) => {
    const listOf = (catalog: Catalog) =>
      catalog.listTools({
        disclosure: mode,
        unlocked: NO_UNLOCKS,
        allowed: access.allowedSkills(principal, catalog),
      });
    const before = listOf(previous);
    const after = listOf(next);
    return before.length !== after.length || before.some((tool, i) => tool.name !== after[i]?.name);
  };

  /** Whether the principal may use a skill before or after a reload: what hears of a change to it. */
  const usedAcross = (previous: Catalog, next: Catalog, principal: Principal) => {
    const before = access.allowedSkills(principal, previous);
    const after = access.allowedSkills(principal, next);
    return (name: string) =>
      before === undefined || after === undefined || before.has(name) || after.has(name);
  };

  return {
    touches(previous, next, principal, changed) {
      const used = usedAcross(previous, next, principal);
      for (const name of changed) if (used(name)) return true;
      return false;
    },
    async affectedBy(diff, previous, next, audience) {
      const used = usedAcross(previous, next, audience.principal);
      // A reload that moved the principal across tools.max_listed changes its whole list.
      if (modeOf(previous, audience) !== modeOf(next, audience)) return true;
      const mode = modeOf(next, audience);
      // The shared tools come and go with the catalog, though no listed skill changed: call_skill_tool with the
      // first usable skill that uses an upstream (and goes with the last), the async pair with the first script.
      if (mode !== 'namespaced' && sharedToolsChanged(previous, next, audience.principal, mode)) return true;
      // Search lists only fixed tools and the pinned get_info tools.
      if (mode === 'search') {
        const pinned = (name: string) =>
          previous.skills.get(name)?.pinned === true || next.skills.get(name)?.pinned === true;
        return [...diff.listed].some((name) => used(name) && pinned(name));
      }
      if ([...diff.listed].some(used)) return true;
      // Changed run/read tools matter where they are listed: eager always, namespaced once unlocked.
      if (mode === 'eager') return [...diff.tools].some(used);
      if (mode !== 'namespaced') return false;
      const unlocked = await store.unlocked(audience.scopeKey);
      return [...diff.tools].some((name) => used(name) && unlocked.has(name));
    },
  };
}
