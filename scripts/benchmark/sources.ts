// pnpm bench:sources — the sources phase of pnpm bench alone (sourcesPhase.ts): prints its rows and writes
// bench-results/sources.json. BENCH_QUICK=1 for one repetition.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sourcesBench } from './sourcesPhase.js';

const rows: string[] = [];
const notes: string[] = [];
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const results = await sourcesBench({
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
await writeFile(join(dir, 'sources.json'), `${JSON.stringify(results, null, 2)}\n`);
