import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The SKILL.md of a minimal valid skill. */
export const skillMd = (name: string, description = `The ${name} skill.`): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`;

/** One skill to write: its files by path inside the skill folder (SKILL.md is written unless given). */
export interface TempSkill {
  readonly description?: string;
  readonly files?: Readonly<Record<string, string>>;
}

/** A temp folder with a skill root in it, removed by close(). */
export interface TempSkills {
  /** The temp folder (the root is `root` inside it; files outside every skill go here). */
  readonly work: string;
  /** The skill root: one folder per skill. */
  readonly root: string;
  /** Writes a file (creating its folders), relative to `work`. */
  put(path: string, content: string): Promise<void>;
  close(): Promise<void>;
}

/** Writes skills into a fresh temp folder: `{ name: { files } }` becomes `<work>/root/<name>/...`. */
export async function createTempSkills(
  skills: Readonly<Record<string, TempSkill>> = {},
  prefix = 'skillgate-skills-',
): Promise<TempSkills> {
  const work = await mkdtemp(join(tmpdir(), prefix));
  const root = join(work, 'root');
  const put = async (path: string, content: string): Promise<void> => {
    const file = join(work, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
  };
  await mkdir(root, { recursive: true });
  for (const [name, skill] of Object.entries(skills)) {
    const files = { 'SKILL.md': skillMd(name, skill.description), ...skill.files };
    for (const [path, content] of Object.entries(files)) await put(join('root', name, path), content);
  }
  return { work, root, put, close: () => rm(work, { recursive: true, force: true }) };
}
