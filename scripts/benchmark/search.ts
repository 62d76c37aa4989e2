// pnpm bench:search — the search phase of pnpm bench alone (searchPhase.ts): prints its rows and writes
// bench-results/search.json. BENCH_QUICK=1 for 1,000 skills only.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { searchBench } from './searchPhase.js';

const rows: string[] = [];
const notes: string[] = [];
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const results = await searchBench({
  quick: process.env.BENCH_QUICK === '1',
  fmt,
  note: (text) => notes.push(text),
  row: (group, metric, value, reference, ratio, target, ok) =>
    rows.push(
      `| ${[group, metric, value, reference, ratio, target, ok === undefined ? '' : ok ? 'PASS' : 'MISS'].join(' | ')} |`,
    ),
});
process.stdout.write(
  `| group | metric | value | reference | ratio | target | verdict |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n\n${notes.join('\n')}\n`,
);
const dir = join(import.meta.dirname, '../../bench-results');
await mkdir(dir, { recursive: true });
await writeFile(join(dir, 'search.json'), `${JSON.stringify(results, null, 2)}\n`);
