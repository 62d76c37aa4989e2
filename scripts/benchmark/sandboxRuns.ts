// pnpm bench:sandbox — the script-run phase of pnpm bench alone (sandboxRunsPhase.ts): prints its rows and
// writes bench-results/sandbox.json. BENCH_QUICK=1 for fewer rounds.
import { sandboxRunsBench } from './sandboxRunsPhase.js';
import { runPhaseAlone } from './support.js';

await runPhaseAlone('sandbox', sandboxRunsBench);
