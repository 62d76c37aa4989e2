import type { ArgumentLimits, ToolInputs } from './toolInputs.js';

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
  | 'SKILL_KEPT_LAST_GOOD';

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
  /** Absolute path of the skill directory. */
  readonly dir: string;
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
  | { readonly kind: 'run_skill_script' };

/** Every tool kind. */
export type ToolKind = ToolTarget['kind'];

/** A skill as the catalog serves it: its tools and texts, computed once. */
export interface CatalogSkill {
  readonly skill: Skill;
  /** Sanitized skill name used in tool names. */
  readonly sname: string;
  readonly getInfoTool: ToolDefinition;
  /** The skill's run/read (and run_async when enabled) tools, in file order. */
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
  /** Longest tool name allowed (DESIGN §3). */
  readonly maxNameLength: number;
  /** When true, scripts also get run_async tools and the shared async tools exist. */
  readonly asyncEnabled: boolean;
  /** Upper bound of the `timeout` argument of run tools, in seconds. */
  readonly maxTimeoutSeconds: number;
  /** The other limits of tool arguments (default DEFAULT_ARGUMENT_LIMITS): enforced and advertised. */
  readonly argumentLimits?: Omit<ArgumentLimits, 'maxTimeoutSeconds'>;
  /** Problems from loading, carried along so that one object reports everything. */
  readonly problems?: readonly Problem[];
}

/** The immutable, shared tool catalog built from the loaded skills. */
export interface Catalog {
  /** Catalog skills by skill name, in root-then-path order. */
  readonly skills: ReadonlyMap<string, CatalogSkill>;
  /** Loading problems plus tool-name clashes and truncations. */
  readonly problems: readonly Problem[];
  readonly asyncEnabled: boolean;
  /** The input contract: validators enforced on tools/call and the JSON Schemas advertised from them. */
  readonly inputs: ToolInputs;
  /** O(1) lookup of a tool name (any mode). */
  resolve(toolName: string): ToolTarget | undefined;
  /** The tools/list a caller with this view sees; cached per (mode, allowed) where possible. */
  listTools(view: ToolView): readonly ToolDefinition[];
  /** Whether a caller with this view may call the named tool now, must unlock its skill first, or cannot. */
  access(toolName: string, view: ToolView): ToolAccess;
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
}

/** Options of parseSkillMd. */
export interface ParseSkillMdOptions {
  /** Absolute path of the SKILL.md, used in problems. */
  readonly file: string;
  /** Name of the skill directory: `name` must equal it, and lenient mode falls back to it. */
  readonly dirName: string;
  readonly validation: Validation;
}

/** The fields of a skill that come from its SKILL.md. */
export type SkillMdFields = Pick<
  Skill,
  'name' | 'description' | 'license' | 'compatibility' | 'metadata' | 'allowedTools' | 'body'
>;

/** What parsing one SKILL.md produced: the fields, or undefined when the skill is refused, and its problems. */
export interface ParseSkillMdResult {
  readonly skill: SkillMdFields | undefined;
  readonly problems: readonly Problem[];
}

/** Codes of SkillsError: only programming errors throw, skill problems are reported as Problems. */
export type SkillsErrorCode = 'OPTION_INVALID';
