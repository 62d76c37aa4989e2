// pnpm bench:search — the search phases of pnpm bench alone (searchPhase.ts, searchFloodPhase.ts): prints
// their rows and writes bench-results/search.json. BENCH_QUICK=1 for 1,000 skills only and shorter runs;
// BENCH_SEARCH_PART=flood for the flood phase alone.
import { searchFloodBench } from './searchFloodPhase.js';
import { searchBench } from './searchPhase.js';
import { runPhaseAlone } from './support.js';

await runPhaseAlone('search', async (options) => ({
  ...(process.env.BENCH_SEARCH_PART === 'flood' ? {} : await searchBench(options)),
  flood: await searchFloodBench(options),
}));
