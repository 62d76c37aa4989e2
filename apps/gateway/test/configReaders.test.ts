import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/testGateway.js';

const SRC = join(REPO_ROOT, 'apps/gateway/src');

// The composition root (createGateway.ts and the config -> settings translation in compose/) and the CLI.
const READERS = ['createGateway.ts', 'compose/', 'cli.ts', 'cli/'];

// Reading the config: its type or a section type (helpers such as isLoopbackHost or the LogLevel union are
// plain values), or a `config.<section>.` access.
const READS: readonly RegExp[] = [
  /\bSkillgateConfig\b/,
  /\b[A-Z]\w*Config\b[^;]*from '@skillgate\/config'/,
  /\bconfig\.[a-z_]+\b/,
];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

describe('typed options, no runtime bag', () => {
  it('lets only the composition root and the CLI read the config: every other module gets plain typed options', async () => {
    const leaks: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const path = relative(SRC, file);
      if (READERS.some((reader) => path === reader || (reader.endsWith('/') && path.startsWith(reader))))
        continue;
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (READS.some((pattern) => pattern.test(line))) leaks.push(`${path}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(leaks).toEqual([]);
  });
});
