import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

/** Absolute path of a fixture root under test/fixtures. */
export const fixture = (...parts: string[]): string =>
  join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', ...parts);

const created: string[] = [];

const fifos: string[] = [];

afterEach(async () => {
  // Opening a FIFO read-write never blocks and counts as a writer: any reader stuck on it (the bug a test
  // guards against) gets its open and then EOF, so a failing test leaves no thread hanging. Before the
  // directories go: an unlinked FIFO can no longer be opened to release them.
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      // Removed by the test itself.
    }
  }
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

/** Creates a FIFO (named pipe) at `path`: opening it for reading without O_NONBLOCK blocks until a writer comes. */
export function makeFifo(path: string): void {
  execFileSync('mkfifo', [path]);
  fifos.push(path);
}

/** Creates (or resizes) a sparse file of `size` bytes: huge to read, cheap to make. */
export async function sparseFile(path: string, size: number): Promise<void> {
  await writeFile(path, '');
  await truncate(path, size);
}
