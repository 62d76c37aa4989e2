// pnpm bench:sources — the sources phase of pnpm bench alone (sourcesPhase.ts): prints its rows and writes
// bench-results/sources.json. BENCH_QUICK=1 for one repetition.
import { sourcesBench } from './sourcesPhase.js';
import { runPhaseAlone } from './support.js';

await runPhaseAlone('sources', sourcesBench);
