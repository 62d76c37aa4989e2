import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRunnableScript } from '../src/load/isRunnableScript.js';
import { tempDir, writeTree } from './helpers/fixtures.js';

const EXTENSIONS = new Set(['.py', '.sh']);

async function candidate(path: string, content: string | Uint8Array, mode: number) {
  const dir = await tempDir();
  await writeTree(dir, { [path]: content });
  await chmod(join(dir, path), mode);
  return { path, absolutePath: join(dir, path), isExecutable: (mode & 0o111) !== 0 };
}

describe('isRunnableScript', () => {
  it('runs a file whose extension has an interpreter, executable or not, in any case', async () => {
    expect(await isRunnableScript(await candidate('scripts/a.py', 'print(1)', 0o644), EXTENSIONS)).toBe(true);
    expect(await isRunnableScript(await candidate('scripts/A.SH', 'echo', 0o644), EXTENSIONS)).toBe(true);
  });

  it('runs an executable with a shebang or an ELF header', async () => {
    const shebang = await candidate('scripts/check', '#!/bin/sh\necho ok\n', 0o755);
    expect(await isRunnableScript(shebang, EXTENSIONS)).toBe(true);
    const elf = await candidate('scripts/tool', new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]), 0o755);
    expect(await isRunnableScript(elf, EXTENSIONS)).toBe(true);
  });

  it('refuses a file with no interpreter that is not executable, or has no shebang', async () => {
    expect(await isRunnableScript(await candidate('scripts/notes.txt', 'hi', 0o644), EXTENSIONS)).toBe(false);
    expect(await isRunnableScript(await candidate('scripts/check', '#!/bin/sh\n', 0o644), EXTENSIONS)).toBe(
      false,
    );
    expect(await isRunnableScript(await candidate('scripts/data.rb', 'puts 1', 0o755), EXTENSIONS)).toBe(
      false,
    );
    expect(await isRunnableScript(await candidate('scripts/empty', '', 0o755), EXTENSIONS)).toBe(false);
  });

  it('counts every file as runnable when no interpreter list is given', async () => {
    expect(await isRunnableScript(await candidate('scripts/notes.txt', 'hi', 0o644), undefined)).toBe(true);
  });
});
