import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { errorCode } from './errorCode.js';
import { isInside } from './isInside.js';
import { mapInOrder } from './mapInOrder.js';
import { noSkillMdProblem } from './noSkillMdProblem.js';
import { parseSkillMd } from './parseSkillMd.js';
import { scanSkillFiles } from './scanSkillFiles.js';
import type { LoadResult, LoadSkillsOptions, Problem, Skill } from './types.js';

// Skills of a root load in parallel, but boundedly, so that a large root cannot exhaust file descriptors.
const PARALLEL_SKILLS = 8;

interface LoadedSkill {
  readonly skill?: Skill;
  readonly problems: readonly Problem[];
}

/**
 * Discovers and parses the skills of every root (DESIGN §2). Never throws on bad skills or roots: every
 * problem is reported, and on a name clash the first root (then the first path) wins.
 */
export async function loadSkills(options: LoadSkillsOptions): Promise<LoadResult> {
  const skills: Skill[] = [];
  const problems: Problem[] = [];
  const byName = new Map<string, Skill>();
  // The same root listed twice would only clash with itself.
  const roots = [...new Set(options.roots.map((root) => resolve(root)))];
  for (const root of roots) {
    const dirNames = await listSkillDirs(root, problems);
    const loaded = await mapInOrder(dirNames, PARALLEL_SKILLS, (dirName) =>
      loadSkill(root, dirName, options),
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

/** The names of the skill directories of a root, sorted; dot-directories and plain files are ignored. */
async function listSkillDirs(root: string, problems: Problem[]): Promise<string[]> {
  try {
    const entries = await readdir(root, { withFileTypes: true });
    const dirNames: string[] = [];
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      // A symlinked skill directory in a root is deliberate (linking a skill in), so it is followed.
      const isDir =
        entry.isDirectory() ||
        (entry.isSymbolicLink() &&
          (await stat(join(root, entry.name)).catch(() => undefined))?.isDirectory() === true);
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

async function loadSkill(root: string, dirName: string, options: LoadSkillsOptions): Promise<LoadedSkill> {
  const { validation } = options;
  const dir = join(root, dirName);
  const file = join(dir, 'SKILL.md');
  const missing = (reason: string): LoadedSkill => ({
    problems: [{ severity: 'error', code: 'SKILL_MD_MISSING', file, skill: dirName, reason }],
  });
  let text: string;
  try {
    const dirReal = await realpath(dir);
    if (!isInside(await realpath(file), dirReal))
      return missing('SKILL.md is a symlink leading outside the skill');
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return { problems: [await noSkillMdProblem(dir, validation)] };
    return missing(`cannot read SKILL.md (${code})`);
  }
  const parsed = parseSkillMd(text, { file, dirName, validation });
  if (parsed.skill === undefined) return { problems: parsed.problems };
  let scan: Awaited<ReturnType<typeof scanSkillFiles>>;
  try {
    scan = await scanSkillFiles(dir, parsed.skill.name, options);
  } catch (error) {
    // Only a directory vanishing mid-load gets here; it must not stop the other skills.
    return missing(`cannot read the skill directory (${errorCode(error)})`);
  }
  return {
    skill: { ...parsed.skill, dir, root, files: scan.files },
    problems: [...parsed.problems, ...scan.problems],
  };
}
