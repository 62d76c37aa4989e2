import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type CommittedResults,
  phasesInDoc,
  withBenchTables,
} from '../../../../scripts/benchmark/docTables.js';
import { REPO_ROOT } from '../helpers/testGateway.js';

const DOC = join(REPO_ROOT, 'docs/benchmarks.md');
const RESULTS = join(REPO_ROOT, 'docs/bench-results.json');

const read = async () => ({
  doc: await readFile(DOC, 'utf8'),
  results: JSON.parse(await readFile(RESULTS, 'utf8')) as CommittedResults,
});

describe('docs/benchmarks.md shows the bench results committed beside it', () => {
  it('every table between bench:table markers is what the renderer makes of docs/bench-results.json (run `pnpm bench:docs`)', async () => {
    const { doc, results } = await read();
    expect(doc).toBe(withBenchTables(doc, results));
  });

  it('every phase in the results has a table in the doc, and every table a phase with rows', async () => {
    const { doc, results } = await read();
    const inDoc = phasesInDoc(doc);
    expect(inDoc.length).toBeGreaterThan(10);
    expect(new Set(inDoc).size).toBe(inDoc.length);
    expect([...inDoc].sort()).toEqual(Object.keys(results.phases).sort());
    for (const phase of inDoc) expect(results.phases[phase]?.rows.length, phase).toBeGreaterThan(0);
  });
});
