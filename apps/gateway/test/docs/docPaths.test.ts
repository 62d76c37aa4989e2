import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/testGateway.js';

// Where a path written in the docs may be relative to: the repository, the gateway's source, a package's
// source (docs name modules as `auth/originPolicy.ts` or `catalog/toolViews.ts`).
const BASES = async (): Promise<string[]> => [
  REPO_ROOT,
  join(REPO_ROOT, 'apps/gateway/src'),
  join(REPO_ROOT, 'apps/gateway'),
  ...(await readdir(join(REPO_ROOT, 'packages'))).flatMap((pkg) => [
    join(REPO_ROOT, 'packages', pkg, 'src'),
    join(REPO_ROOT, 'packages', pkg),
  ]),
];

// A code span that names a file or folder of this repository: a path with a slash ending in a source or
// doc extension, or a top-level folder of the repo. URLs, globs, placeholders and flags are not paths.
const PATH =
  /^(?:\.\/)?(?:[\w.@-]+\/)+[\w.@-]*\.(?:ts|mjs|js|md|json|yaml|yml|sh)$|^(?:apps|packages|docs|scripts|configs|examples|deploy)\/[\w./@-]*$/;

// Paths the docs name on purpose that are not in the repository: a user's files, a skill's own files in
// examples, what `pnpm bench` and `pnpm build` write, and a file the docs say was not made.
const NOT_IN_REPO = new Set([
  '.vscode/mcp.json',
  'scripts/requirements.txt',
  'scripts/rename_app.py',
  'references/conventions/conventional-commits.md',
  'a/../SKILL.md',
  'bench-results/latest.json',
  'bench-results/attacks.json',
  'configs/clients.yaml',
  // A build output (pnpm build).
  'apps/gateway/dist/cli.js',
]);

async function namedPaths(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1] ?? '')
    .map((span) => span.replace(/[:#].*$/, ''))
    .filter((span) => PATH.test(span) && !span.includes('*') && !span.includes('<') && !span.includes('{'));
}

describe('docs that cannot drift', () => {
  it('every repository path named in docs/ and the README exists', async () => {
    const bases = await BASES();
    const docs = [
      join(REPO_ROOT, 'README.md'),
      ...(await readdir(join(REPO_ROOT, 'docs')))
        .filter((f) => f.endsWith('.md'))
        .map((f) => join(REPO_ROOT, 'docs', f)),
    ];
    const missing: string[] = [];
    for (const doc of docs) {
      for (const path of await namedPaths(doc)) {
        const clean = path.replace(/^\.\//, '').replace(/\/$/, '');
        if (NOT_IN_REPO.has(clean)) continue;
        if (!bases.some((base) => existsSync(join(base, clean))))
          missing.push(`${doc.slice(REPO_ROOT.length + 1)}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every repository path named in a source comment exists', async () => {
    const bases = await BASES();
    const roots = [
      join(REPO_ROOT, 'apps/gateway/src'),
      ...(await readdir(join(REPO_ROOT, 'packages'))).map((pkg) => join(REPO_ROOT, 'packages', pkg, 'src')),
    ];
    const missing: string[] = [];
    for (const root of roots) {
      if (!existsSync(root)) continue;
      for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
        const file = join(entry.parentPath, entry.name);
        const text = await readFile(file, 'utf8');
        // Comments only: a path in a string is data, not a pointer for the reader.
        const comments = [...text.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)].map((m) => m[0]).join('\n');
        for (const [, path = ''] of comments.matchAll(/((?:[\w.@-]+\/)+[\w.@-]+\.(?:ts|md))\b/g)) {
          if (path.includes('*') || NOT_IN_REPO.has(path)) continue;
          const here = [entry.parentPath, ...bases];
          if (!here.some((base) => existsSync(join(base, path))))
            missing.push(`${file.slice(REPO_ROOT.length + 1)}: ${path}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
