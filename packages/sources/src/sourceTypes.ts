import type { LoadSkillsOptions, SourceRoot } from '@skillgate/skills';

/** A git source of `sources.list` (docs/sources.md). */
export interface GitSource {
  readonly id: string;
  /** https, ssh or file URL of the repository. */
  readonly git: string;
  /** Branch, tag or 40-hex commit; absent: the remote HEAD. */
  readonly ref?: string;
  /** Subfolder holding the skill folders; absent: the repository root. */
  readonly path?: string;
  /** Globs over skill folder names; absent: every folder. */
  readonly skills?: readonly string[];
  /** Variable holding a token sent to this source's URL only (HTTP basic, user `x-access-token`). */
  readonly token_env?: string;
}

/** An archive source of `sources.list`: a .tar.gz, .tgz or .zip pinned by its sha256. */
export interface ArchiveSource {
  readonly id: string;
  readonly archive: string;
  /** 64 lowercase hex characters: the archive's bytes are checked against it before anything is unpacked. */
  readonly sha256: string;
  readonly path?: string;
  readonly skills?: readonly string[];
}

/** One entry of `sources.list`, exactly as configured. */
export type SourceDefinition = GitSource | ArchiveSource;

/** What the lock pins for one source. */
export interface LockEntry {
  readonly id: string;
  /** The source exactly as configured when it was pinned; a different config re-resolves it. */
  readonly source: SourceDefinition;
  /** The resolved git commit, or `sha256:<hex>` of an archive. */
  readonly commit: string;
  /** The content digest over every served file of the source's skills. */
  readonly digest: string;
  /** One content digest per skill, by name. */
  readonly skills: Readonly<Record<string, string>>;
}

/** The lock file's contents. */
export interface Lock {
  readonly version: 1;
  readonly sources: readonly LockEntry[];
}

/** How one source stands after a start, a sync or an upgrade. */
export interface SourceStatus {
  readonly id: string;
  readonly kind: 'git' | 'archive';
  /** `fetched` from the remote now, `cached` verified from the cache, `failed`. */
  readonly state: 'fetched' | 'cached' | 'failed';
  readonly commit?: string;
  readonly digest?: string;
  /** The last error, tokens never included. */
  readonly error?: string;
}

/** One source as /readyz lists it: its status, and what the last look at its remote found. */
export interface SourceReadiness extends SourceStatus {
  /** Whether the remote ref has moved past the pin (git; absent until checked). */
  readonly behind?: boolean;
  /** The last error of a remote check or a follow, tokens never included. */
  readonly last_error?: string;
}

/** Caps on what one source may bring in. */
export interface SourceLimits {
  /** Bytes downloaded (an archive) or checked out (a git path). */
  readonly maxBytes: number;
  /** Files (and folders) in a source. */
  readonly maxFiles: number;
}

/** Options of the sources' operations. */
export interface SourcesOptions {
  readonly sources: readonly SourceDefinition[];
  /** Absolute path of the lock file. */
  readonly lockFile: string;
  /** Absolute path of the content-addressed cache. */
  readonly cacheDir: string;
  /** Deadline of one fetch in milliseconds. */
  readonly timeoutMs: number;
  readonly limits: SourceLimits;
  /** Where `token_env` variables are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How the skills are loaded (the same rules as local roots), for their digests. */
  readonly load: Omit<LoadSkillsOptions, 'roots' | 'sources'>;
  /** Lines worth an operator's attention (what was fetched, what came from the cache). */
  readonly onInfo?: (message: string) => void;
  readonly onWarning?: (message: string) => void;
  /**
   * Replicas without a lock file agree on one commit: the first to resolve a source records its entry here
   * and the others take it (docs/sources.md, "Replicas").
   */
  readonly shared?: SharedPins;
}

/** Lock entries shared by replicas (the state backend), as JSON text. */
export interface SharedPins {
  /** The text held for `key`, or `value` after storing it when none was. */
  claim(key: string, value: string): Promise<string>;
  /** The text held for `key`, if any. */
  get(key: string): Promise<string | undefined>;
}

/** Verified folders ready to serve, and how each source stands. */
export interface MaterializedSources {
  readonly roots: readonly SourceRoot[];
  readonly statuses: readonly SourceStatus[];
  /** The lock as it stands now (what was read, plus every entry resolved in this run). */
  readonly lock: Lock;
}

/** True for a git source. */
export const isGitSource = (source: SourceDefinition): source is GitSource => 'git' in source;
