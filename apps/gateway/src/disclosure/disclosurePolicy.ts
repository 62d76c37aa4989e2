import {
  CALL_SKILL_TOOL,
  type Catalog,
  type CatalogSkill,
  type Disclosure,
  HOST_NAMES_NOTE,
  renderSummary,
  type ToolDefinition,
  type ToolTarget,
  type ToolView,
} from '@skillgate/skills';
import type { SessionStore } from '@skillgate/state';
import type { AccessPolicy, Principal } from '../auth/accessPolicy.js';
import type { CatalogDiff } from '../reload/catalogDiff.js';
import { createCatalogMemo } from '../reload/catalogMemo.js';

/** The protocol era of a request: 2025-era sessions (`initialize`) or 2026-07-28 per-request. */
export type Era = 'legacy' | 'modern';

/** Who is asking, as far as disclosure is concerned. */
export interface Audience {
  readonly era: Era;
  readonly disclosure: Disclosure;
  readonly principal: Principal;
  /** Where unlocks and jobs are kept: the session id, or `principal:<name>`. */
  readonly scopeKey: string;
  /** The legacy session id, for logs (none on 2026-07-28 requests). */
  readonly sessionId?: string;
}

/** What the policy says about one called tool name. */
export type CallDecision =
  | { readonly kind: 'callable'; readonly target: ToolTarget }
  /** A run/read tool of a skill the caller may use but has not unlocked yet (namespaced only). */
  | { readonly kind: 'locked'; readonly skill: CatalogSkill }
  /** Nonexistent, or not the caller's: answered identically so that nothing can be probed. */
  | { readonly kind: 'unknown' };

/** What get_info / load_skill does for this audience. */
export interface UnlockEffect {
  /** Record the skill as unlocked (only where it changes what the caller sees). */
  readonly record: boolean;
  /** Send tools/list_changed on the calling request's stream after the first unlock. */
  readonly notify: boolean;
}

/** Options of createDisclosurePolicy. */
export interface DisclosurePolicyOptions {
  readonly access: AccessPolicy;
  /** Where unlocks are read (only namespaced 2025-era sessions have any). */
  readonly store: Pick<SessionStore, 'unlocked'>;
  /** Characters the whole initialize instructions may take (`skills.max_instructions_chars`). */
  readonly maxInstructionsChars: number;
}

/**
 * The one rule of who sees and may call what (docs/disclosure.md): listing, calling, instructions and
 * reload notifications all ask this module, for both eras and every mode.
 */
export interface DisclosurePolicy {
  /** The catalog view of an audience (the one place a ToolView is built). */
  view(catalog: Catalog, audience: Audience): Promise<ToolView>;
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
  /** The tools/list of an audience whose list never depends on unlocks (2026-07-28): no store access. */
  listToolsWithoutUnlocks(catalog: Catalog, audience: Audience): readonly ToolDefinition[];
  /** Whether the principal may use a skill of the catalog (see, read, run, get through the Skills extension). */
  mayUseSkill(catalog: Catalog, principal: Principal, skill: string): boolean;
  /** Whether a reload that changed `changed` (skill names) touched a skill the principal may use before or after. */
  touches(previous: Catalog, next: Catalog, principal: Principal, changed: ReadonlySet<string>): boolean;
  /** Whether an audience may call a tool name now. */
  decideCall(catalog: Catalog, audience: Audience, toolName: string): Promise<CallDecision>;
  /** A skill by name if the principal may use it (else undefined, exactly as if it did not exist). */
  usableSkill(catalog: Catalog, principal: Principal, skill: string): CatalogSkill | undefined;
  /** Names of the skills the principal may use, in catalog order. */
  usableSkillNames(catalog: Catalog, principal: Principal): readonly string[];
  /** What reading a skill's instructions does for this audience. */
  unlockEffect(audience: Audience): UnlockEffect;
  /** The get_info text this audience gets for a skill. */
  infoText(entry: CatalogSkill, audience: Audience): string;
  /** The server instructions: how disclosure works here, then the summary of the usable skills. */
  instructions(catalog: Catalog, audience: Pick<Audience, 'disclosure' | 'principal'>): string;
  /** `private` when the principal's token filters what it sees (a shared cache must not reuse it). */
  cacheScope(catalog: Catalog, principal: Principal): 'public' | 'private';
  /** Whether a reload (previous -> next, diff) changed what a legacy session lists. */
  affectedBy(diff: CatalogDiff, previous: Catalog, next: Catalog, audience: Audience): Promise<boolean>;
}

const HOW: Readonly<Record<Disclosure, string>> = {
  namespaced:
    "Each skill starts as one tool, skill_<name>_get_info: call it to read the skill's instructions; that unlocks its run/read tools for this session.",
  eager:
    "Every skill tool is listed. Call a skill_<name>_get_info tool to read that skill's instructions before using its tools.",
  universal:
    'Call load_skill with a skill name to read its instructions; then use list_skill_files, read_skill_file and run_skill_script.',
  catalog:
    "Call a skill_<name>_get_info tool to read that skill's instructions; they name the exact read_skill_file and run_skill_script calls for each of its files.",
};

const NO_UNLOCKS: ReadonlySet<string> = new Set();

/** Builds the disclosure policy over the access policy (allow-lists) and the session store (unlocks). */
export function createDisclosurePolicy(options: DisclosurePolicyOptions): DisclosurePolicy {
  const { access, store } = options;
  // Instructions are equal for every audience of one (catalog, mode, principal): render each once.
  const instructionsMemo = createCatalogMemo<string>();

  const unlocksMatter = (audience: Audience) =>
    audience.era === 'legacy' && audience.disclosure === 'namespaced';

  const view = async (catalog: Catalog, audience: Audience): Promise<ToolView> => ({
    disclosure: audience.disclosure,
    // Only namespaced sessions have unlocks; elsewhere the list never depends on what the caller did.
    unlocked: unlocksMatter(audience) ? await store.unlocked(audience.scopeKey) : NO_UNLOCKS,
    allowed: access.allowedSkills(audience.principal, catalog),
  });

  const usableSkill = (catalog: Catalog, principal: Principal, skill: string): CatalogSkill | undefined => {
    const entry = catalog.skills.get(skill);
    if (entry === undefined) return undefined;
    const allowed = access.allowedSkills(principal, catalog);
    return allowed === undefined || allowed.has(skill) ? entry : undefined;
  };

  return {
    view,
    async listTools(catalog, audience) {
      return catalog.listTools(await view(catalog, audience));
    },
    previewTools(catalog, principal, disclosure, unlocked = NO_UNLOCKS) {
      return catalog.listTools({ disclosure, unlocked, allowed: access.allowedSkills(principal, catalog) });
    },
    listToolsWithoutUnlocks(catalog, audience) {
      if (unlocksMatter(audience)) throw new Error('this audience lists by its unlocks: use listTools');
      return catalog.listTools({
        disclosure: audience.disclosure,
        unlocked: NO_UNLOCKS,
        allowed: access.allowedSkills(audience.principal, catalog),
      });
    },
    mayUseSkill: (catalog, principal, skill) => usableSkill(catalog, principal, skill) !== undefined,
    touches(previous, next, principal, changed) {
      const before = access.allowedSkills(principal, previous);
      const after = access.allowedSkills(principal, next);
      if (before === undefined || after === undefined) return changed.size > 0;
      return [...changed].some((name) => before.has(name) || after.has(name));
    },
    async decideCall(catalog, audience, toolName) {
      const target = catalog.resolve(toolName);
      if (target === undefined) return { kind: 'unknown' };
      const decision = catalog.access(toolName, await view(catalog, audience));
      if (decision === 'callable') return { kind: 'callable', target };
      if (decision === 'locked' && 'skill' in target) {
        const skill = catalog.skills.get(target.skill);
        if (skill !== undefined) return { kind: 'locked', skill };
      }
      return { kind: 'unknown' };
    },
    usableSkill,
    usableSkillNames(catalog, principal) {
      const allowed = access.allowedSkills(principal, catalog);
      const names = [...catalog.skills.keys()];
      return allowed === undefined ? names : names.filter((name) => allowed.has(name));
    },
    unlockEffect(audience) {
      const matters = unlocksMatter(audience);
      return { record: matters, notify: matters };
    },
    infoText(entry, audience) {
      switch (audience.disclosure) {
        case 'universal':
          return entry.loadSkillText;
        case 'catalog':
          return entry.catalogInfoText;
        default:
          return entry.getInfoText;
      }
    },
    instructions(catalog, audience) {
      return instructionsMemo(catalog, `${audience.disclosure}\0${audience.principal.id}`, () => {
        const allowed = access.allowedSkills(audience.principal, catalog);
        const entries = [...catalog.skills.values()].filter(
          (e) => allowed === undefined || allowed.has(e.skill.name),
        );
        // Hosts keep only the first ~2 KB (docs/clients.md): how to use the gateway comes first, then the
        // summary in what is left (every name, then descriptions as they fit).
        // Where tools of other MCP servers go through the dispatcher, say so once (docs/upstreams.md).
        const dispatched =
          (audience.disclosure === 'catalog' || audience.disclosure === 'universal') &&
          entries.some((e) => e.usesUpstreams)
            ? ` Tools of other MCP servers that a skill uses are called with ${CALL_SKILL_TOOL}, exactly as its instructions print.`
            : '';
        const how = `skillgate serves Agent Skills. ${HOW[audience.disclosure]}${dispatched}\n${HOST_NAMES_NOTE}\n\n`;
        const summary = renderSummary(entries, 'xml', {
          tools: audience.disclosure !== 'universal',
          maxChars: Math.max(0, options.maxInstructionsChars - how.length),
        });
        return `${how}${summary}`;
      });
    },
    cacheScope(catalog, principal) {
      return access.allowedSkills(principal, catalog) === undefined ? 'public' : 'private';
    },
    async affectedBy(diff, previous, next, audience) {
      const before = access.allowedSkills(audience.principal, previous);
      const after = access.allowedSkills(audience.principal, next);
      const mayUse = (name: string) =>
        before === undefined || after === undefined || before.has(name) || after.has(name);
      if ([...diff.listed].some(mayUse)) return true;
      // Changed run/read tools matter where they are listed: eager always, namespaced once unlocked.
      if (audience.disclosure === 'eager') return [...diff.tools].some(mayUse);
      if (audience.disclosure !== 'namespaced') return false;
      const unlocked = await store.unlocked(audience.scopeKey);
      return [...diff.tools].some((name) => mayUse(name) && unlocked.has(name));
    },
  };
}
