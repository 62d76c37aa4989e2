import type { Skill, SkillFile } from '../../src/index.js';

/** An in-memory skill with the given file paths, for catalog tests that need exact names. */
export function makeSkill(
  name: string,
  paths: readonly string[] = [],
  description = `The ${name} skill.`,
): Skill {
  const dir = `/skills/${name}`;
  const files: SkillFile[] = [...paths].sort().map((path) => ({
    path,
    absolutePath: `${dir}/${path}`,
    size: 10,
    isScript: path.startsWith('scripts/'),
    isExecutable: false,
    mimeType: 'text/plain',
    isBinary: false,
  }));
  const skillMd: SkillFile = {
    path: 'SKILL.md',
    absolutePath: `${dir}/SKILL.md`,
    size: 10,
    isScript: false,
    isExecutable: false,
    mimeType: 'text/markdown',
    isBinary: false,
  };
  return {
    name,
    description,
    metadata: {},
    body: `# ${name}`,
    frontmatter: { name, description },
    skillMd,
    dir,
    realDir: dir,
    root: '/skills',
    files,
  };
}
