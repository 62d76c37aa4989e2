import type { Problem, SkillFile } from '../load/loadTypes.js';

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
  /** For a skill fetched from a source: `{ "io.skillgate/source": { id, commit } }` (docs/sources.md). */
  readonly _meta?: Readonly<Record<string, unknown>>;
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
