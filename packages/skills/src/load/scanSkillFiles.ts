import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { boundedFileOp, type FileOpOptions } from '../files/boundedFileOp.js';
import { errorCode } from '../files/errorCode.js';
import { type FileFacts, inspectFile } from '../files/inspectFile.js';
import { isInside } from '../files/isInside.js';
import { mimeTypeOf } from '../files/mimeType.js';
import { isRunnableScript } from './isRunnableScript.js';
import type { Problem, SkillFile } from './loadTypes.js';

/** Most files served per skill; the rest are reported and left out. */
export const MAX_FILES_PER_SKILL = 1000;

/** Default cap on the size of a served file (config `skills.max_file_bytes`): 64 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 67_108_864;

const VENDORED_DIRS = new Set(['node_modules', '__pycache__', '.venv', 'venv', 'bower_components']);

/** Options of scanSkillFiles. */
export interface ScanOptions extends FileOpOptions {
  /** Hash every served file (default true). */
  readonly digests?: boolean;
  /** Extensions with a configured interpreter; when given, other non-shebang files under `scripts/` get no run tool. */
  readonly interpreterExtensions?: readonly string[];
  /** Largest file served; a larger one is skipped before it is read or hashed (default DEFAULT_MAX_FILE_BYTES). */
  readonly maxFileBytes?: number;
  /** Real path of `skillDir` when the caller resolved it already (default: resolved here). */
  readonly realDir?: string;
}

interface Walk {
  readonly skill: string;
  readonly skillDir: string;
  readonly skillReal: string;
  readonly options: ScanOptions;
  readonly files: SkillFile[];
  readonly problems: Problem[];
  readonly interpreterExtensions: ReadonlySet<string> | undefined;
  full: boolean;
}

/** What scanning a skill directory found: its served files, sorted by path, and the entries it skipped. */
export interface ScanResult {
  /** The real path the skill was scanned at: every file's absolutePath lies beneath it. */
  readonly realDir: string;
  readonly files: readonly SkillFile[];
  readonly problems: readonly Problem[];
}

const byPath = (a: { path: string }, b: { path: string }): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/**
 * Lists the resources of the skill in `skillDir` (docs/skills.md): every regular file except the top SKILL.md,
 * each opened once through the bounded reader (docs/decisions.md, "Bounded file access") to learn its size,
 * digest and whether it is text. FIFOs, sockets and devices are skipped, even when they replace a file
 * between listing and opening.
 */
export async function scanSkillFiles(
  skillDir: string,
  skill: string,
  options: ScanOptions = {},
): Promise<ScanResult> {
  const skillReal = options.realDir ?? (await boundedFileOp(skillDir, () => realpath(skillDir), options));
  const extensions = options.interpreterExtensions?.map((ext) => ext.toLowerCase());
  const walk: Walk = {
    skill,
    skillDir,
    skillReal,
    options,
    files: [],
    problems: [],
    interpreterExtensions: extensions === undefined ? undefined : new Set(extensions),
    full: false,
  };
  await walkDir(walk, skillDir, skillReal, '', new Set([skillReal]));
  return { realDir: skillReal, files: walk.files.sort(byPath), problems: walk.problems };
}

function skip(walk: Walk, file: string, reason: string): void {
  walk.problems.push({ severity: 'warning', code: 'FILE_SKIPPED', file, skill: walk.skill, reason });
}

function notRunnable(walk: Walk, path: string, file: string): void {
  const ext = extname(path);
  const why = ext === '' ? 'it has no extension' : `no interpreter is configured for "${ext}"`;
  walk.problems.push({
    severity: 'warning',
    code: 'SCRIPT_NOT_RUNNABLE',
    file,
    skill: walk.skill,
    reason: `${path}: ${why} and it is not an executable with a shebang, so it gets no run tool (it can still be read)`,
  });
}

/**
 * Walks one directory. `fsDir` names it in problems, `realDir` is its real path (read, and for loop detection),
 * `prefix` the POSIX path of the directory inside the skill, `ancestors` the real paths above it.
 */
async function walkDir(
  walk: Walk,
  fsDir: string,
  realDir: string,
  prefix: string,
  ancestors: ReadonlySet<string>,
) {
  let entries: Dirent[];
  try {
    entries = await boundedFileOp(realDir, () => readdir(realDir, { withFileTypes: true }), walk.options);
  } catch (error) {
    skip(walk, fsDir, `${prefix || './'}: cannot read directory (${errorCode(error)})`);
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (walk.full) return;
    if (prefix === '' && entry.name === 'SKILL.md') continue;
    await visitEntry(walk, entry, fsDir, realDir, prefix, ancestors);
  }
}

async function visitEntry(
  walk: Walk,
  entry: Dirent,
  fsDir: string,
  realDir: string,
  prefix: string,
  ancestors: ReadonlySet<string>,
): Promise<void> {
  const path = prefix + entry.name;
  const fsPath = join(fsDir, entry.name);
  if (entry.name.startsWith('.')) {
    skip(walk, fsPath, `${path}: dotfiles are not served`);
    return;
  }
  // Everything is opened and listed by its real path: that is what the catalog records, and what each later
  // open is checked against (openRegularFile). The configured path only names entries in problems.
  let real = join(realDir, entry.name);
  // readdir's entry type saves a stat per plain file; only symlinks need resolving first.
  let isDirectory = entry.isDirectory();
  if (entry.isSymbolicLink()) {
    try {
      const link = real;
      real = await boundedFileOp(link, () => realpath(link), walk.options);
    } catch (error) {
      skip(walk, fsPath, `${path}: broken symlink (${errorCode(error)})`);
      return;
    }
    if (!isInside(real, walk.skillReal)) {
      skip(walk, fsPath, `${path}: symlink leads outside the skill directory`);
      return;
    }
    // Serve the target resolved now, so that retargeting the link later cannot leave the skill.
    let stats: Stats;
    try {
      stats = await boundedFileOp(real, () => stat(real), walk.options);
    } catch (error) {
      skip(walk, fsPath, `${path}: cannot stat (${errorCode(error)})`);
      return;
    }
    isDirectory = stats.isDirectory();
  } else if (!isDirectory && !entry.isFile()) {
    skip(walk, fsPath, `${path}: not a regular file`);
    return;
  }
  if (isDirectory) {
    if (VENDORED_DIRS.has(entry.name)) skip(walk, fsPath, `${path}/: vendored directory not served`);
    else if (ancestors.has(real)) skip(walk, fsPath, `${path}: symlink loop`);
    else await walkDir(walk, fsPath, real, `${path}/`, new Set([...ancestors, real]));
  } else if (walk.files.length >= MAX_FILES_PER_SKILL) {
    walk.full = true;
    skip(
      walk,
      walk.skillDir,
      `more than ${MAX_FILES_PER_SKILL} files: ${path} and later files are not served`,
    );
  } else {
    await addFile(walk, path, real, fsPath);
  }
}

async function addFile(walk: Walk, path: string, absolutePath: string, fsPath: string): Promise<void> {
  let facts: FileFacts;
  try {
    // The opened handle decides: a file swapped for a FIFO or a symlink since readdir, or a folder on its
    // way swapped for a symlink, is refused here.
    facts = await inspectFile(absolutePath, {
      ...walk.options,
      digest: walk.options.digests ?? true,
      maxBytes: walk.options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    });
  } catch (error) {
    const code = errorCode(error);
    skip(
      walk,
      fsPath,
      code === 'FILE_NOT_REGULAR'
        ? `${path}: not a regular file`
        : code === 'FILE_CHANGED'
          ? `${path}: changed while the skill was scanned`
          : code === 'FILE_TOO_LARGE'
            ? `${path}: ${(error as Error).message} (skills.max_file_bytes); not served, and not read or hashed`
            : `${path}: cannot read (${code})`,
    );
    return;
  }
  const { isExecutable, isBinary } = facts;
  let isScript = false;
  if (path.startsWith('scripts/')) {
    try {
      isScript = await isRunnableScript({ path, absolutePath, isExecutable }, walk.interpreterExtensions);
    } catch (error) {
      skip(walk, fsPath, `${path}: cannot read (${errorCode(error)})`);
      return;
    }
    if (!isScript) notRunnable(walk, path, fsPath);
  }
  walk.files.push({
    path,
    absolutePath,
    size: facts.size,
    isScript,
    isExecutable,
    mimeType: mimeTypeOf(path, isBinary),
    isBinary,
    ...(facts.digest === undefined ? {} : { digest: facts.digest }),
  });
}
