import { readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { boundedFileOp } from '../files/boundedFileOp.js';
import { errorCode } from '../files/errorCode.js';
import { isInside } from '../files/isInside.js';
import { looksBinary } from '../files/looksBinary.js';
import { readBounded } from '../files/readBounded.js';
import { sha256Digest } from '../files/sha256Digest.js';
import { globMatcher } from '../names/globMatcher.js';
import type { LoadResult, LoadSkillsOptions, Problem, Skill, SkillFile, SkillOrigin } from './loadTypes.js';
import { mapInOrder } from './mapInOrder.js';
import { noSkillMdProblem } from './noSkillMdProblem.js';
import { parseSkillMd } from './parseSkillMd.js';
import { scanSkillFiles } from './scanSkillFiles.js';

// Skills of a root load in parallel, but boundedly, so that a large root cannot exhaust file descriptors.
const PARALLEL_SKILLS = 8;

/** Default cap on the size of a SKILL.md: a larger one refuses its skill (config `skills.max_skill_md_bytes`). */
export const DEFAULT_MAX_SKILL_MD_BYTES = 262_144;

interface LoadedSkill {
  readonly skill?: Skill;
  readonly problems: readonly Problem[];
}

/**
 * Discovers and parses the skills of every root (docs/skills.md). Never throws on bad skills or roots: every
 * problem is reported, and on a name clash the first root (then the first path) wins.
 */
export async function loadSkills(options: LoadSkillsOptions): Promise<LoadResult> {
  const skills: Skill[] = [];
  const problems: Problem[] = [];
  const byName = new Map<string, Skill>();
  // The same root listed twice would only clash with itself.
  const plain = [...new Set(options.roots.map((root) => resolve(root)))].map((dir) => ({ dir }));
  const fetched = (options.sources ?? []).map((s) => ({
    dir: resolve(s.dir),
    origin: s.origin,
    takes: takesSkill(s.skills),
  }));
  const roots: Array<{ dir: string; origin?: SkillOrigin; takes?: (name: string) => boolean }> = [
    ...plain,
    ...fetched,
  ];
  for (const { dir: root, origin, takes } of roots) {
    const listed = await listSkillDirs(root, options, problems);
    const dirNames = takes === undefined ? listed : listed.filter(takes);
    const loaded = await mapInOrder(dirNames, PARALLEL_SKILLS, (dirName) =>
      loadSkill(root, dirName, options, origin),
    );
    for (const { skill, problems: found } of loaded) {
      problems.push(...found);
      if (skill === undefined) continue;
      const winner = byName.get(skill.name);
      if (winner !== undefined) {
        problems.push({
          severity: 'warning',
          code: 'NAME_CLASH',
          file: join(skill.dir, 'SKILL.md'),
          field: 'name',
          skill: skill.name,
          reason: `skill "${skill.name}" is already served from ${winner.dir}; this one is ignored`,
        });
        continue;
      }
      byName.set(skill.name, skill);
      skills.push(skill);
    }
  }
  return { skills, problems };
}

/** A source's `skills` globs as one test of a folder name; none: every folder. */
function takesSkill(globs: readonly string[] | undefined): ((name: string) => boolean) | undefined {
  if (globs === undefined || globs.length === 0) return undefined;
  const matchers = globs.map(globMatcher);
  return (name) => matchers.some((matches) => matches(name));
}

/** The names of the skill directories of a root, sorted; dot-directories and plain files are ignored. */
async function listSkillDirs(
  root: string,
  options: LoadSkillsOptions,
  problems: Problem[],
): Promise<string[]> {
  const timeout = { timeoutMs: options.fileTimeoutMs };
  try {
    const entries = await boundedFileOp(root, () => readdir(root, { withFileTypes: true }), timeout);
    const dirNames: string[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const path = join(root, entry.name);
      // A symlinked skill directory in a root is deliberate (linking a skill in), so it is followed.
      const isDir =
        entry.isDirectory() ||
        (entry.isSymbolicLink() &&
          (await boundedFileOp(path, () => stat(path), timeout).catch(() => undefined))?.isDirectory() ===
            true);
      if (isDir) dirNames.push(entry.name);
    }
    return dirNames.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  } catch (error) {
    problems.push({
      severity: 'error',
      code: 'ROOT_UNREADABLE',
      file: root,
      reason: `cannot read skills root (${errorCode(error)})`,
    });
    return [];
  }
}

async function loadSkill(
  root: string,
  dirName: string,
  options: LoadSkillsOptions,
  origin: SkillOrigin | undefined,
): Promise<LoadedSkill> {
  const dir = join(root, dirName);
  const file = join(dir, 'SKILL.md');
  const timeout = { timeoutMs: options.fileTimeoutMs };
  const refuse = (code: Problem['code'], reason: string): LoadedSkill => ({
    problems: [{ severity: 'error', code, file, skill: dirName, reason }],
  });
  const maxBytes = options.maxSkillMdBytes ?? DEFAULT_MAX_SKILL_MD_BYTES;
  let skillMdPath: string;
  let dirReal: string;
  let read: Awaited<ReturnType<typeof readBounded>>;
  try {
    dirReal = await boundedFileOp(dir, () => realpath(dir), timeout);
    skillMdPath = await boundedFileOp(file, () => realpath(file), timeout);
    if (!isInside(skillMdPath, dirReal))
      return refuse('SKILL_MD_MISSING', 'SKILL.md is a symlink leading outside the skill');
    // Through the bounded reader: a FIFO or a device as SKILL.md is refused, never waited on.
    read = await readBounded(skillMdPath, { maxBytes, ...timeout });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return { problems: [await noSkillMdProblem(dir, options.validation)] };
    return refuse(
      'SKILL_MD_MISSING',
      code === 'FILE_NOT_REGULAR' ? 'SKILL.md is not a regular file' : `cannot read SKILL.md (${code})`,
    );
  }
  if (read.truncated) {
    return refuse(
      'SKILL_MD_TOO_LARGE',
      `SKILL.md is ${read.size} bytes, over the ${maxBytes}-byte limit (skills.max_skill_md_bytes)`,
    );
  }
  const parsed = parseSkillMd(read.bytes.toString('utf8'), {
    file,
    dirName,
    validation: options.validation,
    ...(options.maxDescriptionChars === undefined
      ? {}
      : { maxDescriptionChars: options.maxDescriptionChars }),
  });
  if (parsed.skill === undefined) return { problems: parsed.problems };
  let scan: Awaited<ReturnType<typeof scanSkillFiles>>;
  try {
    scan = await scanSkillFiles(dir, parsed.skill.name, {
      digests: options.digests ?? true,
      realDir: dirReal,
      ...(options.maxFileBytes === undefined ? {} : { maxFileBytes: options.maxFileBytes }),
      ...timeout,
      ...(options.interpreterExtensions === undefined
        ? {}
        : { interpreterExtensions: options.interpreterExtensions }),
    });
  } catch (error) {
    // Only a directory vanishing mid-load gets here; it must not stop the other skills.
    return refuse('SKILL_MD_MISSING', `cannot read the skill directory (${errorCode(error)})`);
  }
  const isBinary = looksBinary(read.bytes, false);
  const skillMd: SkillFile = {
    path: 'SKILL.md',
    absolutePath: skillMdPath,
    size: read.bytes.length,
    isScript: false,
    isExecutable: false,
    mimeType: 'text/markdown',
    isBinary,
    ...(options.digests === false ? {} : { digest: sha256Digest(read.bytes) }),
  };
  return {
    skill: {
      ...parsed.skill,
      dir,
      realDir: dirReal,
      root,
      files: scan.files,
      skillMd,
      ...(origin === undefined ? {} : { origin }),
    },
    problems: [...parsed.problems, ...scan.problems],
  };
}
