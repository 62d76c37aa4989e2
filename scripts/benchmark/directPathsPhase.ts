// The direct-paths phase of `pnpm bench`: the 2025-session direct answers (apps/gateway/src/direct/,
// sessionAnswers.ts) against the SDK's own path for the same requests, on two gateways alike but for
// `createGateway(config, { directAnswers: false })` (servers.ts BENCH_DIRECT=0). Issue 41, item 3: the
// direct path stays only if it buys at least 10 % on its paths (TARGETS.directPathGain).
import type { BenchContext } from './context.js';
import { loadOnce, openUnlockedSessions, PATHS } from './hotPaths.js';
import { startServer } from './support.js';
import { TARGETS } from './targets.js';

const CONNECTIONS = 20;

/** One side's best round: requests per second and its CPU µs per request. */
interface Side {
  rps: number;
  cpu: number;
  errors: number;
}

/** Rows of the direct paths group: each 2025-session hot path, direct answers on against off. */
export async function directPathsPhase(context: BenchContext): Promise<void> {
  const { row, fmt, quick } = context;
  const root = await context.skills(100);
  const seconds = quick ? 1 : 3;
  const env = { BENCH_PROMPTS: '1' };
  const direct = await startServer('gateway', root, 'namespaced', 'off', env);
  const sdk = await startServer('gateway', root, 'namespaced', 'off', { ...env, BENCH_DIRECT: '0' });
  const measured: Array<{ label: string; direct: Side; sdk: Side }> = [];
  try {
    const sessions = {
      direct: await openUnlockedSessions(direct.url, CONNECTIONS),
      sdk: await openUnlockedSessions(sdk.url, CONNECTIONS),
    };
    for (const path of PATHS.filter((p) => p.era === 'legacy')) {
      const best = {
        direct: { rps: 0, cpu: Infinity, errors: 0 },
        sdk: { rps: 0, cpu: Infinity, errors: 0 },
      };
      // Alternating rounds, the best of each side kept (as in hotPaths.ts).
      for (let round = 0; round < 3; round++) {
        for (const [side, server] of [
          ['direct', direct],
          ['sdk', sdk],
        ] as const) {
          const load = await loadOnce(server.url, path, sessions[side], CONNECTIONS, seconds);
          const b = best[side];
          b.rps = Math.max(b.rps, load.rps);
          b.cpu = Math.min(b.cpu, load.cpuPerRequest);
          b.errors += load.errors;
        }
      }
      measured.push({ label: path.label, ...best });
    }
  } finally {
    await direct.stop();
    await sdk.stop();
  }
  context.result('direct_paths', measured);
  for (const m of measured) {
    row(
      'direct paths',
      `2025 session ${m.label} req/s (CPU µs/req), direct path vs SDK path`,
      `${fmt(m.direct.rps)} (${fmt(m.direct.cpu)})`,
      `SDK path ${fmt(m.sdk.rps)} (${fmt(m.sdk.cpu)})`,
      `${fmt(m.direct.rps / m.sdk.rps, 2)}x; CPU ${fmt(m.sdk.cpu / m.direct.cpu, 2)}x`,
      TARGETS.directPathGain,
      m.direct.rps / m.sdk.rps,
    );
    if (m.direct.errors + m.sdk.errors > 0)
      row(
        'direct paths',
        `2025 session ${m.label} errors`,
        String(m.direct.errors),
        `SDK path ${m.sdk.errors}`,
        '',
        TARGETS.noErrors,
        m.direct.errors + m.sdk.errors,
      );
  }
  context.note(
    `Direct paths: two gateways serving the same 100 skills, one with createGateway's directAnswers off (every 2025-session request through the SDK's transport and server), ${CONNECTIONS} sessions each that unlocked the skill, 3 alternating rounds of ${seconds} s per path, the best of each side kept; ratio = direct req/s ÷ SDK path req/s, and SDK CPU ÷ direct CPU per request.`,
  );
}
