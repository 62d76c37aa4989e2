import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './helpers/testGateway.js';

const SRC = join(REPO_ROOT, 'apps/gateway/src');

// Looking a called tool name up in a catalog, or asking the catalog about a name instead of a resolved target.
const LOOKUPS: readonly RegExp[] = [
  /\.resolve\((name|toolName|request\.params\.name)\)/,
  /\.access\((name|toolName)\b/,
];

// The one place a tools/call name is resolved (into a CalledTool every later step reads).
const RESOLVER = 'tools/toolHandlers.ts';

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => join(e.parentPath, e.name));
}

describe('a called tool name', () => {
  it('is resolved once, in the tools/call handler: policy, dispatch and labels read the resolved target', async () => {
    const lookups: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const path = relative(SRC, file);
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (LOOKUPS.some((pattern) => pattern.test(line))) lookups.push(`${path}:${index + 1}`);
      });
    }
    expect(lookups).toHaveLength(1);
    expect(lookups[0]).toMatch(new RegExp(`^${RESOLVER}:`));
  });
});
