// pnpm bench:reload — the reload phase of pnpm bench alone (reloadStallPhase.ts): prints its rows and writes
// bench-results/reload.json. BENCH_QUICK=1 for a shorter idle measurement.
import { reloadStallBench } from './reloadStallPhase.js';
import { runPhaseAlone } from './support.js';

await runPhaseAlone('reload', reloadStallBench);
