// pnpm bench:docs [--from <latest.json>]: merges a bench run (default bench-results/latest.json, when there is
// one) into docs/bench-results.json, then renders the tables of docs/benchmarks.md from it (docTables.ts).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type CommittedResults, mergeRun, type RunResults, withBenchTables } from './docTables.js';

const REPO = join(import.meta.dirname, '../..');
const COMMITTED = join(REPO, 'docs/bench-results.json');
const DOC = join(REPO, 'docs/benchmarks.md');
const { values } = parseArgs({
  options: { from: { type: 'string', default: join(REPO, 'bench-results/latest.json') } },
});

const readJson = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, 'utf8')) as T;
let results: CommittedResults = existsSync(COMMITTED) ? await readJson(COMMITTED) : { phases: {} };
if (existsSync(values.from)) {
  const run = await readJson<RunResults>(values.from);
  results = mergeRun(results, run);
  process.stdout.write(`merged ${run.phases.join(', ')} from ${values.from}\n`);
}
await writeFile(COMMITTED, `${JSON.stringify(results, null, 2)}\n`);
await writeFile(DOC, withBenchTables(await readFile(DOC, 'utf8'), results));
process.stdout.write(`rendered ${DOC}\n`);
