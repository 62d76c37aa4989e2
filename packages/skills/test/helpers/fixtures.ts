import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** Absolute path of a fixture root under test/fixtures. */
export const fixture = (...parts: string[]): string =>
  join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', ...parts);

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary directory, removed after the current test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'skillgate-skills-'));
  created.push(dir);
  return dir;
}

/** Writes `files` (relative path -> content) under `dir`, creating directories as needed. */
export async function writeTree(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

/** A minimal valid SKILL.md for `name`. */
export const skillMd = (name: string, description = `The ${name} skill.`): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
