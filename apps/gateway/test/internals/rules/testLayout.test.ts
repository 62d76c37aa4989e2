import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Behaviour tests live in one folder per feature (docs/architecture.md, "Tests"): a newcomer finds the tests of
// a feature beside each other, and a new file goes where its feature's are, not flat in test/.
const TESTS = join(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the gateway tests', () => {
  it('sit in feature folders: no test file is flat in apps/gateway/test', () => {
    const flat = readdirSync(TESTS, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.test.ts'))
      .map((entry) => entry.name);
    expect(flat).toEqual([]);
  });

  it('name every folder in docs/architecture.md', async () => {
    const architecture = await readFile(join(TESTS, '../../../docs/architecture.md'), 'utf8');
    const folders = readdirSync(TESTS, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !['fixtures', 'helpers', 'internals'].includes(entry.name))
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !architecture.includes(`\`${folder}/\``))).toEqual([]);
  });
});
