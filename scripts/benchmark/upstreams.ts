// pnpm bench:upstreams — the upstream-overhead phase of pnpm bench alone (upstreamPhase.ts): prints its rows
// and writes bench-results/upstreams.json. BENCH_QUICK=1 for shorter windows.
import { runPhaseAlone } from './support.js';
import { upstreamOverheadBench } from './upstreamPhase.js';

await runPhaseAlone('upstreams', upstreamOverheadBench);
