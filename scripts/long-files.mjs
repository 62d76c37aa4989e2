// Prints source files past 300 lines, as a reminder to read them once more: does each still hold one job?
// A warning, never a failure: files are split by cohesion, not by count (docs/architecture.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const LIMIT = 300;
const roots = ['apps/gateway/src', ...readdirSync(join(ROOT, 'packages')).map((p) => `packages/${p}/src`)];
const long = [];
for (const root of roots) {
  let entries = [];
  try {
    entries = readdirSync(join(ROOT, root), { withFileTypes: true, recursive: true });
  } catch {
    continue;
  }
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    const lines = readFileSync(file, 'utf8').split('\n').length;
    if (lines > LIMIT) long.push(`${relative(ROOT, file)} (${lines} lines)`);
  }
}
for (const line of long) console.log(`warning: ${line} is past ${LIMIT} lines: does it still hold one job?`);
