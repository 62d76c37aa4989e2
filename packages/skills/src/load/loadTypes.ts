/** How strictly SKILL.md files are checked: `strict` refuses a skill with any problem. */
export type Validation = 'strict' | 'lenient';

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
  | 'UPSTREAM_BINDING_EMPTY'
  | 'UPSTREAM_TOOLS_DROPPED';

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

/** Where a fetched skill came from (docs/sources.md): its source's id and the commit (or archive sha256). */
export interface SkillOrigin {
  /** The source's `id` in `sources.list`. */
  readonly source: string;
  /** The pinned git commit, or `sha256:<hex>` of an archive. */
  readonly commit: string;
}

/** A fetched source's folder, served after the plain roots; only the skill folders its globs take. */
export interface SourceRoot {
  /** The folder holding one folder per skill (a verified cache entry). */
  readonly dir: string;
  readonly origin: SkillOrigin;
  /** Globs over skill folder names (`*`, `?`); empty or absent: every folder. */
  readonly skills?: readonly string[];
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
  /** Set when the skill comes from a fetched source rather than a local root. */
  readonly origin?: SkillOrigin;
}

/** What loading a set of roots produced: the servable skills and every problem found. */
export interface LoadResult {
  readonly skills: readonly Skill[];
  readonly problems: readonly Problem[];
}

/** Options of loadSkills. */
export interface LoadSkillsOptions {
  /** Skill roots in precedence order: on a name clash the first root wins. */
  readonly roots: readonly string[];
  /** Fetched sources, served after `roots` in this order (the first still wins a name clash). */
  readonly sources?: readonly SourceRoot[];
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
