// pnpm bench:search — the search phase of pnpm bench alone (searchPhase.ts): prints its rows and writes
// bench-results/search.json. BENCH_QUICK=1 for 1,000 skills only.
import { searchBench } from './searchPhase.js';
import { runPhaseAlone } from './support.js';

await runPhaseAlone('search', searchBench);
