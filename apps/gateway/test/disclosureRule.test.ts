import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/testGateway.js';

const SRC = join(REPO_ROOT, 'apps/gateway/src');

// What deciding visibility looks like in code: reading a principal's allow-list, building a tool view
// (listTools / access with a disclosure mode, unlocks and an allow-list) or reading a session's unlocks.
// Asking the policy (`disclosure.listTools(...)`) is what every other module does instead.
const DECISIONS: readonly RegExp[] = [
  /\.allowedSkills\(/,
  /(?<!disclosure)\.listTools\(/,
  /\bcatalog\.access\(/,
  /\.unlocked\(/,
];

// Where the rule lives (disclosure/), where the allow-list it asks is defined (auth/), and the session store
// decorator that keeps a request's unlocks (it stores them; it decides nothing).
const ALLOWED = ['disclosure/', 'auth/accessPolicy.ts', 'legacy/withUnlockSnapshots.ts'];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

describe('the disclosure rule', () => {
  it('is decided only in disclosure/: no other gateway module reads allow-lists, unlocks or builds tool views', async () => {
    const leaks: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const path = relative(SRC, file);
      if (ALLOWED.some((allowed) => path.startsWith(allowed))) continue;
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (DECISIONS.some((pattern) => pattern.test(line)))
          leaks.push(`${path}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(leaks).toEqual([]);
  });
});
