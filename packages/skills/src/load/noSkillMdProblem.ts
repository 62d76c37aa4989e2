import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Problem, Validation } from './loadTypes.js';

/**
 * The problem reported for a folder of a skills root that has no SKILL.md (docs/decisions.md, "Skills"): a
 * warning in lenient mode, since such a folder is simply not a skill, and an error in strict mode. A
 * `skill.md` in another case is always an error: that folder was meant to be a skill.
 */
export async function noSkillMdProblem(dir: string, validation: Validation): Promise<Problem> {
  const file = join(dir, 'SKILL.md');
  const dirName = basename(dir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const misnamed = names.find((name) => name.toLowerCase() === 'skill.md');
  if (misnamed !== undefined) {
    return {
      severity: 'error',
      code: 'SKILL_MD_MISSING',
      file,
      skill: dirName,
      reason: `skipped: found "${misnamed}", but a skill's file must be named SKILL.md`,
    };
  }
  return {
    severity: validation === 'strict' ? 'error' : 'warning',
    code: 'SKILL_MD_MISSING',
    file,
    skill: dirName,
    reason: 'skipped: no SKILL.md, so this folder is not a skill',
  };
}
