import type { ArgumentLimits, ToolInputs } from './catalog/toolInputs.js';
import type { ServedFileCache } from './files/servedFileCache.js';

/** How strictly SKILL.md files are checked: `strict` refuses a skill with any problem. */
export type Validation = 'strict' | 'lenient';

/** Every disclosure mode, in the order docs list them (docs/disclosure.md). */
export const DISCLOSURES = ['namespaced', 'universal', 'eager', 'catalog'] as const;

/** How a caller is shown the catalog (docs/disclosure.md). */
export type Disclosure = (typeof DISCLOSURES)[number];

/** Output formats of the L1 skill summary. */
export type SummaryFormat = 'markdown' | 'json' | 'xml';

/** Stable codes for every problem found while loading skills or building the catalog. */
export type ProblemCode =
  | 'SKILL_MD_MISSING'
  | 'FRONTMATTER_INVALID'
  | 'FIELD_MISSING'
  | 'FIELD_INVALID'
  | 'FIELD_UNKNOWN'
  | 'NAME_MISMATCH'
  | 'NAME_CLASH'
  | 'FILE_SKIPPED'
  | 'SCRIPT_NOT_RUNNABLE'
  | 'TOOL_NAME_CLASH'
  | 'TOOL_NAME_TRUNCATED'
  | 'ROOT_UNREADABLE'
  | 'SKILL_KEPT_LAST_GOOD'
  | 'SKILL_MD_TOO_LARGE'
  | 'SKILL_NOT_PUBLISHED'
  | 'SKILL_OVER_LIMITS'
  | 'UPSTREAM_UNKNOWN'
  | 'UPSTREAM_BINDING_EMPTY';

/** One problem, located by file and (when it is about frontmatter) field. */
export interface Problem {
  readonly severity: 'error' | 'warning';
  readonly code: ProblemCode;
  /** Absolute path of the file or directory the problem is about. */
  readonly file: string;
  /** Frontmatter field or tool name concerned, when there is one. */
  readonly field?: string;
  /** Name of the skill concerned, when known. */
  readonly skill?: string;
  readonly reason: string;
}

/** A served file of a skill (every regular file except SKILL.md). */
export interface SkillFile {
  /** POSIX path inside the skill directory, e.g. `scripts/build.sh`. */
  readonly path: string;
  /**
   * Real path found at load (every symlink resolved), beneath the skill's `realDir`: every later open must
   * land exactly there (see openRegularFile), however the folders on the way change.
   */
  readonly absolutePath: string;
  readonly size: number;
  /**
   * True for files under `scripts/` that can run (an interpreter is configured for the extension, or the file
   * is executable with a shebang): they get run tools. Other files under `scripts/` are only readable.
   */
  readonly isScript: boolean;
  /** True when the file has its executable bit set (shebang scripts may run directly). */
  readonly isExecutable: boolean;
  readonly mimeType: string;
  /** True when the content is not UTF-8 text (sniffed at load time). */
  readonly isBinary: boolean;
  /** `sha256:<64 hex>` of the bytes read at load time (absent only when loaded with `digests: false`). */
  readonly digest?: string;
}

/** A parsed, validated skill. */
export interface Skill {
  readonly name: string;
  readonly description: string;
  readonly license?: string;
  readonly compatibility?: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly allowedTools?: string;
  /** SKILL.md body with the frontmatter removed. */
  readonly body: string;
  /** The SKILL.md frontmatter exactly as parsed: every field the author wrote, unknown ones included. */
  readonly frontmatter: Readonly<Record<string, unknown>>;
  /** SKILL.md itself as a served file (path `SKILL.md`), with its size and digest. */
  readonly skillMd: SkillFile;
  /** Absolute path of the skill directory, as found in its root (for messages). */
  readonly dir: string;
  /** Real path of the skill directory at load: files open beneath it, and scripts run in it. */
  readonly realDir: string;
  /** Absolute path of the root the skill was found in. */
  readonly root: string;
  readonly files: readonly SkillFile[];
}

/** What loading a set of roots produced: the servable skills and every problem found. */
export interface LoadResult {
  readonly skills: readonly Skill[];
  readonly problems: readonly Problem[];
}

/** JSON Schema of a tool's input, as sent in tools/list. */
export interface ToolInputSchema {
  readonly type: 'object';
  readonly properties?: Readonly<Record<string, object>>;
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly [key: string]: unknown;
}

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
  | { readonly kind: 'read_skill_file' }
  | { readonly kind: 'list_skill_files' }
  | { readonly kind: 'run_skill_script' }
  /** An upstream MCP tool bound to a skill (docs/upstreams.md): `skill_<s>_call_<tool>`. */
  | { readonly kind: 'call'; readonly skill: string; readonly call: CallTool }
  /** The dispatcher of catalog/universal modes: `call_skill_tool { skill, tool, arguments }`. */
  | { readonly kind: 'call_skill_tool' };

/** Every tool kind. */
export type ToolKind = ToolTarget['kind'];

/** One tool of an upstream MCP server as the catalog is built from it (plain data, no transport). */
export interface UpstreamTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** What the catalog knows of one configured upstream MCP server when it is built (docs/upstreams.md). */
export interface UpstreamSnapshot {
  /** The configured `id` (a-z0-9-): names its auto skill and its `mcp__<id>__<tool>` bindings. */
  readonly id: string;
  /** `auto`: the upstream is a skill of its own; `none`: only folder skills that bind its tools expose them. */
  readonly skill: 'auto' | 'none';
  /** The configured description of its auto skill. */
  readonly description?: string;
  readonly state: 'connecting' | 'ready' | 'down';
  /** Why it is down (or why the last attempt failed). */
  readonly lastError?: string;
  /** The upstream's initialize `instructions`. */
  readonly instructions?: string;
  readonly serverInfo?: { readonly name: string; readonly title?: string; readonly version?: string };
  /** Already narrowed by the configured `tools` globs; the last known list while down. */
  readonly tools: readonly UpstreamTool[];
}

/** An upstream tool as one skill exposes it: its call tool and the dispatcher's name for it. */
export interface CallTool {
  /** The upstream's id. */
  readonly upstream: string;
  /** The upstream tool's own name: what is sent upstream. */
  readonly tool: string;
  /** `tool` for call_skill_tool, or `<upstream>__<tool>` when the skill binds two tools of that name. */
  readonly dispatchName: string;
  /** The namespaced definition (`skill_<s>_call_<tool>`), with the upstream's schema and annotations. */
  readonly definition: ToolDefinition;
}

/** A skill as the catalog serves it: its tools and texts, computed once. */
export interface CatalogSkill {
  /** For an auto skill of an upstream, a synthetic skill: no directory, no files, body = its instructions. */
  readonly skill: Skill;
  /** The upstream id when this is the auto skill of an upstream (`skill: auto`); absent for folder skills. */
  readonly upstream?: string;
  /** Upstream tools the skill exposes, by dispatch name, in listing order. */
  readonly calls: ReadonlyMap<string, CallTool>;
  /** True when the skill is an auto skill or binds at least one configured upstream (even with no tools now). */
  readonly usesUpstreams: boolean;
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
}

/** Options of createCatalog. */
export interface CatalogOptions {
  /** Longest tool name allowed (README, "Writing a skill": tool names). */
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
  /** Whether a caller with this view may call the named tool now, must unlock its skill first, or cannot. */
  access(toolName: string, view: ToolView): ToolAccess;
}

/** One file of a skill in a Skills extension entry: URI, digest and size of its raw bytes. */
export interface SkillResourceEntry {
  readonly uri: string;
  /** `sha256:<64 lowercase hex>`. */
  readonly digest: string;
  readonly size: number;
}

/** A skill as the Skills extension (`io.modelcontextprotocol/skills`) lists it. */
export interface SkillEntry {
  /** `skill://<name>/SKILL.md`. */
  readonly uri: string;
  /** The SKILL.md frontmatter verbatim; `name` and `description` are strings in every published entry. */
  readonly frontmatter: Readonly<{ name: string; description: string; [key: string]: unknown }>;
  /** SKILL.md and every served file, each once, sorted by URI; `dynamic` when built without digests. */
  readonly resources: readonly SkillResourceEntry[] | 'dynamic';
}

/** What a `skill://` URI names: a served file (SKILL.md included) of a catalog skill. */
export interface SkillResourceTarget {
  /** Skill name: filter it by principal exactly as tools are. */
  readonly skill: string;
  readonly uri: string;
  readonly file: SkillFile;
}

/** The Skills extension's view of one catalog, computed at catalog build. */
export interface SkillsExtensionIndex {
  /** Entries of the skills that conform to the extension's rules, by skill name, in catalog order. */
  readonly entries: ReadonlyMap<string, SkillEntry>;
  /** Skills left unpublished (SKILL_NOT_PUBLISHED) or over the extension's limits (SKILL_OVER_LIMITS). */
  readonly problems: readonly Problem[];
  /** Exact lookup of a served file's URI; `..`, absolute paths, other spellings and excluded files give undefined. */
  resolveUri(uri: string): SkillResourceTarget | undefined;
}

/** The MCP prompt of one skill (`skills.prompts`): its name, description and SKILL.md body. */
export interface SkillPrompt {
  /** Prompt name (docs/skills-extension.md): the skill's tool-name prefix, within the tool-name budget. */
  readonly name: string;
  readonly skill: string;
  readonly description: string;
  /** The SKILL.md body without frontmatter. */
  readonly text: string;
}

/** What a view may do with a tool name: call it, unlock its skill first (namespaced), or nothing. */
export type ToolAccess = 'callable' | 'locked' | 'hidden';

/** Options of loadSkills. */
export interface LoadSkillsOptions {
  /** Skill roots in precedence order: on a name clash the first root wins. */
  readonly roots: readonly string[];
  readonly validation: Validation;
  /** Extensions with a configured interpreter (`.py`); when given, only runnable files under `scripts/` are scripts. */
  readonly interpreterExtensions?: readonly string[];
  /** Largest SKILL.md read; a larger one refuses its skill (default DEFAULT_MAX_SKILL_MD_BYTES). */
  readonly maxSkillMdBytes?: number;
  /** Largest other file served; a larger one is skipped before it is read (default DEFAULT_MAX_FILE_BYTES). */
  readonly maxFileBytes?: number;
  /** Longest description served (default and ceiling 1024, the specification's limit). */
  readonly maxDescriptionChars?: number;
  /** Hash every served file at load (default true); without, entries list their resources as `dynamic`. */
  readonly digests?: boolean;
  /** Deadline of each file operation in milliseconds (default FILE_OP_TIMEOUT_MS). */
  readonly fileTimeoutMs?: number;
}

/** Options of parseSkillMd. */
export interface ParseSkillMdOptions {
  /** Absolute path of the SKILL.md, used in problems. */
  readonly file: string;
  /** Name of the skill directory: `name` must equal it, and lenient mode falls back to it. */
  readonly dirName: string;
  readonly validation: Validation;
  /** Longest description served; a longer one is reported and cut (lenient) or refused (strict). */
  readonly maxDescriptionChars?: number;
}

/** The fields of a skill that come from its SKILL.md. */
export type SkillMdFields = Pick<
  Skill,
  'name' | 'description' | 'license' | 'compatibility' | 'metadata' | 'allowedTools' | 'body' | 'frontmatter'
>;

/** What parsing one SKILL.md produced: the fields, or undefined when the skill is refused, and its problems. */
export interface ParseSkillMdResult {
  readonly skill: SkillMdFields | undefined;
  readonly problems: readonly Problem[];
}

/**
 * Codes of SkillsError: programming errors and file access (FILE_*, from the bounded file readers) throw;
 * skill problems are reported as Problems.
 */
export type SkillsErrorCode =
  | 'OPTION_INVALID'
  | 'FILE_NOT_REGULAR'
  | 'FILE_CHANGED'
  | 'FILE_TOO_LARGE'
  | 'FILE_UNREADABLE'
  | 'FILE_TIMEOUT'
  | 'FILE_BUSY';
