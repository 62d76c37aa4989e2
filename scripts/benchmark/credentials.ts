// pnpm bench:credentials — the credentials phase of pnpm bench alone (credentialsPhase.ts): prints its rows and
// writes bench-results/credentials.json. BENCH_QUICK=1 for fewer samples.
import { credentialsBench } from './credentialsPhase.js';
import { runPhaseAlone } from './support.js';

await runPhaseAlone('credentials', credentialsBench);
