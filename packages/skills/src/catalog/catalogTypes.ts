import type { SkillsExtensionIndex } from '../extension/extensionTypes.js';
import type { ServedFileCache } from '../files/servedFileCache.js';
import type { Problem, Skill, SkillFile } from '../load/loadTypes.js';
import type { UpstreamSnapshot } from '../upstreams/upstreamTypes.js';
import type { ArgumentLimits, ToolInputSchema, ToolInputs } from './toolInputs.js';

/** Every disclosure mode, in the order docs list them (docs/disclosure.md). */
export const DISCLOSURES = ['namespaced', 'universal', 'eager', 'catalog', 'search'] as const;

/** How a caller is shown the catalog (docs/disclosure.md). */
export type Disclosure = (typeof DISCLOSURES)[number];

/** Output formats of the L1 skill summary. */
export type SummaryFormat = 'markdown' | 'json' | 'xml';

/** An MCP tool definition, precomputed once per catalog. */
export interface ToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: ToolInputSchema;
  readonly annotations?: {
    readonly title?: string;
    readonly readOnlyHint?: boolean;
    readonly destructiveHint?: boolean;
    readonly idempotentHint?: boolean;
    readonly openWorldHint?: boolean;
  };
}

/** What a tool name resolves to. */
export type ToolTarget =
  | { readonly kind: 'get_info'; readonly skill: string }
  | { readonly kind: 'run' | 'run_async' | 'read'; readonly skill: string; readonly file: SkillFile }
  | { readonly kind: 'get_async_status' }
  | { readonly kind: 'cancel_async' }
  | { readonly kind: 'load_skill' }
  /** Search mode: ranks the skills a caller may use for a query (docs/disclosure.md). */
  | { readonly kind: 'search_skills' }
  | { readonly kind: 'read_skill_file' }
  | { readonly kind: 'list_skill_files' }
  | { readonly kind: 'run_skill_script' }
  /** An upstream MCP tool bound to a skill (docs/upstreams.md): `skill_<s>_call_<tool>`. */
  | { readonly kind: 'call'; readonly skill: string; readonly call: CallTool }
  /** The dispatcher of catalog/universal modes: `call_skill_tool { skill, tool, arguments }`. */
  | { readonly kind: 'call_skill_tool' };

/** Every tool kind. */
export type ToolKind = ToolTarget['kind'];

/** An upstream tool as one skill exposes it: its call tool and the dispatcher's name for it. */
export interface CallTool {
  /** The upstream's id. */
  readonly upstream: string;
  /** The upstream tool's own name: what is sent upstream. */
  readonly tool: string;
  /**
   * True when the skill binds tools of this name from two upstreams: call_skill_tool then needs `upstream`
   * as its own argument (never parsed out of a name, which an upstream could imitate).
   */
  readonly needsUpstream: boolean;
  /** The namespaced definition (`skill_<s>_call_<tool>`), with the upstream's schema and annotations. */
  readonly definition: ToolDefinition;
}

/** A skill as the catalog serves it: its tools and texts, computed once. */
export interface CatalogSkill {
  /** For an auto skill of an upstream, a synthetic skill: no directory, no files, body = its instructions. */
  readonly skill: Skill;
  /** The upstream id when this is the auto skill of an upstream (`skill: auto`); absent for folder skills. */
  readonly upstream?: string;
  /** Upstream tools the skill exposes, by the upstream tool's own name (one per upstream), in listing order. */
  readonly calls: ReadonlyMap<string, readonly CallTool[]>;
  /** True when the skill is an auto skill or binds at least one configured upstream (even with no tools now). */
  readonly usesUpstreams: boolean;
  /** Whether `skills.pinned` names it: search mode lists its get_info tool. */
  readonly pinned: boolean;
  /** Sanitized skill name used in tool names. */
  readonly sname: string;
  readonly getInfoTool: ToolDefinition;
  /** The skill's run/read (and run_async when enabled) tools, in file order, then its call tools. */
  readonly tools: readonly ToolDefinition[];
  /** Tool name of each file's tools, by file path. */
  readonly toolNames: ReadonlyMap<
    string,
    { readonly read: string; readonly run?: string; readonly runAsync?: string }
  >;
  /** get_info result text for namespaced/eager sessions: body, then the exact tool listing. */
  readonly getInfoText: string;
  /** load_skill result text for universal sessions: body, then the file listing. */
  readonly loadSkillText: string;
  /** get_info result text in catalog mode: body, then the exact run_skill_script/read_skill_file calls. */
  readonly catalogInfoText: string;
}

/** What one caller may see: the catalog is filtered by this, never copied. */
export interface ToolView {
  readonly disclosure: Disclosure;
  /** Skill names unlocked by the session (namespaced mode; empty elsewhere). */
  readonly unlocked: ReadonlySet<string>;
  /** Skill names the principal may use; undefined means every skill. Reuse one Set per principal. */
  readonly allowed?: ReadonlySet<string>;
  /**
   * Namespaced mode only: the catalog mode's dispatcher tools (read_skill_file, run_skill_script,
   * call_skill_tool, the async pair) are listed and callable after the get_info tools, for the skills whose own
   * tools would take the list past tools.max_listed: those are disclosed as catalog mode does, never unlocked.
   */
  readonly dispatchers?: boolean;
}

/** Options of createCatalog. */
export interface CatalogOptions {
  /** Longest tool name allowed (docs/skills.md, "Tool names"). */
  readonly maxNameLength: number;
  /** When true, scripts also get run_async tools and the shared async tools exist. */
  readonly asyncEnabled: boolean;
  /** Upper bound of the `timeout` argument of run tools, in seconds. */
  readonly maxTimeoutSeconds: number;
  /** The other limits of tool arguments (default DEFAULT_ARGUMENT_LIMITS): enforced and advertised. */
  readonly argumentLimits?: Omit<ArgumentLimits, 'maxTimeoutSeconds'>;
  /** Problems from loading, carried along so that one object reports everything. */
  readonly problems?: readonly Problem[];
  /** The configured upstream MCP servers, in config order (docs/upstreams.md). */
  readonly upstreams?: readonly UpstreamSnapshot[];
  /** Globs of skill names whose get_info tools search mode lists beside its fixed tools (`skills.pinned`). */
  readonly pinned?: readonly string[];
}

/** The immutable, shared tool catalog built from the loaded skills. */
export interface Catalog {
  /** Catalog skills by skill name, in root-then-path order. */
  readonly skills: ReadonlyMap<string, CatalogSkill>;
  /** Loading problems plus tool-name clashes and truncations. */
  readonly problems: readonly Problem[];
  /** The upstream snapshots the catalog was built from, by id, in config order. */
  readonly upstreams: ReadonlyMap<string, UpstreamSnapshot>;
  readonly asyncEnabled: boolean;
  /** The input contract: validators enforced on tools/call and the JSON Schemas advertised from them. */
  readonly inputs: ToolInputs;
  /** The Skills extension's entries and `skill://` lookup (docs/skills-extension.md). */
  readonly extension: SkillsExtensionIndex;
  /** One prompt per skill, by prompt name, in catalog order (docs/skills-extension.md). */
  readonly prompts: ReadonlyMap<string, SkillPrompt>;
  /** Verified bytes of this catalog's small served files, for readServedFile (files/servedFileCache.ts). */
  readonly fileCache: ServedFileCache;
  /** O(1) lookup of a tool name (any mode). */
  resolve(toolName: string): ToolTarget | undefined;
  /** The tools/list a caller with this view sees; cached per (mode, allowed) where possible. */
  listTools(view: ToolView): readonly ToolDefinition[];
  /**
   * Whether a caller with this view may call a tool now, must unlock its skill first, or cannot; the tool as
   * resolve() found it (undefined: no such tool, hidden), so a called name is looked up once.
   */
  access(target: ToolTarget | undefined, view: ToolView): ToolAccess;
}

/** What a view may do with a tool name: call it, unlock its skill first (namespaced), or nothing. */
export type ToolAccess = 'callable' | 'locked' | 'hidden';

/** The MCP prompt of one skill (`skills.prompts`): its name, description and SKILL.md body. */
export interface SkillPrompt {
  /** Prompt name (docs/skills-extension.md): the skill's tool-name prefix, within the tool-name budget. */
  readonly name: string;
  readonly skill: string;
  readonly description: string;
  /** The SKILL.md body without frontmatter. */
  readonly text: string;
}
