// Script runs against their ceiling (docs/sandbox.md, "Cost"): run_skill_script's run tool of a one-line bash
// script through the gateway, with bubblewrap and with `scripts.sandbox: off`, beside a raw node:http server
// that spawns the same script directly, at 1 and at 4 runs in flight. Rounds alternate between the three
// servers so the machine's load hits each alike; p50 over every round, throughput the best round's.
import { rm } from 'node:fs/promises';
import type { BenchContext } from './context.js';
import { type BenchServer, generateSkills, openSessions, percentile, rpc, startServer } from './support.js';
import { TARGETS } from './targets.js';

const TOOL = 'skill_gen-00000_run_check_sh';

interface Target {
  readonly name: 'direct' | 'off' | 'bwrap' | 'before-off' | 'before-bwrap';
  readonly server: BenchServer;
  readonly session: string;
}

interface Load {
  readonly p50: number;
  readonly runsPerSecond: number;
}

/** `runs` calls, `inFlight` at a time; every latency, and runs per second over the whole batch. */
async function batch(target: Target, runs: number, inFlight: number, firstId: number) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < runs) {
        const id = firstId + next++;
        const t = performance.now();
        const response = await rpc(target.server.url, target.session, {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: TOOL, arguments: {} },
        });
        const result = response.result as { isError?: boolean } | undefined;
        if (result === undefined || result.isError === true)
          throw new Error(`${target.name}: ${JSON.stringify(response)}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  return { latencies, runsPerSecond: runs / ((performance.now() - started) / 1000) };
}

async function openTarget(name: Target['name'], root: string, beforeRepo?: string): Promise<Target> {
  if (name === 'direct') return { name, server: await startServer('raw-spawn', root), session: '' };
  const before = name.startsWith('before-') ? beforeRepo : undefined;
  const mode = name.replace('before-', '');
  const server = await startServer('gateway', root, 'namespaced', mode, {}, before);
  const [session] = (await openSessions(server.url, 1)).ids;
  if (session === undefined) throw new Error('no session');
  // get_info unlocks the skill's run tool for this session.
  await rpc(server.url, session, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'skill_gen-00000_get_info', arguments: {} },
  });
  return { name, server, session };
}

/** The sandboxed-run rows of `pnpm bench` (also `pnpm bench:sandbox` alone). */
export async function sandboxRunsBench({ row, fmt, note, quick, beforeRepo }: BenchContext) {
  const root = await generateSkills(1);
  const targets: Target[] = [];
  try {
    // --before: another checkout's gateways measured alongside (a note, not rows).
    const names: Target['name'][] = ['direct', 'off', 'bwrap'];
    if (beforeRepo !== undefined) names.push('before-off', 'before-bwrap');
    for (const name of names) targets.push(await openTarget(name, root, beforeRepo));
    const rounds = quick ? 2 : 5;
    const results: Record<string, Load> = {};
    let id = 10;
    for (const inFlight of [1, 4]) {
      const runs = (quick ? 20 : 50) * inFlight;
      const seen = new Map<string, { latencies: number[]; best: number }>();
      // One warm-up batch each (first spawns, page cache), not counted.
      for (const target of targets) {
        id += 1000;
        await batch(target, inFlight * 4, inFlight, id);
      }
      for (let round = 0; round < rounds; round++) {
        for (const target of targets) {
          id += 1000;
          const { latencies, runsPerSecond } = await batch(target, runs, inFlight, id);
          const entry = seen.get(target.name) ?? { latencies: [], best: 0 };
          entry.latencies.push(...latencies);
          entry.best = Math.max(entry.best, runsPerSecond);
          seen.set(target.name, entry);
        }
      }
      for (const [name, { latencies, best }] of seen)
        results[`${name}@${inFlight}`] = { p50: percentile(latencies, 50), runsPerSecond: best };
      const direct = results[`direct@${inFlight}`];
      if (direct === undefined) continue;
      for (const mode of ['before-off', 'before-bwrap']) {
        const run = results[`${mode}@${inFlight}`];
        if (run !== undefined)
          note(
            `scripts: ${mode} at ${inFlight} in flight: ${fmt(run.p50, 1)} ms p50 (+${fmt(run.p50 - direct.p50, 1)}), ${fmt(run.runsPerSecond)}/s (${fmt(run.runsPerSecond / direct.runsPerSecond, 2)}x)`,
          );
      }
      for (const [mode, goal] of [
        ['bwrap', TARGETS.bwrapRuns],
        ['off', TARGETS.unsandboxedRuns],
      ] as const) {
        const run = results[`${mode}@${inFlight}`];
        if (run === undefined) continue;
        const ratio = run.runsPerSecond / direct.runsPerSecond;
        row(
          'scripts',
          `run tool, ${inFlight} in flight, sandbox ${mode}: p50 ms, runs/s`,
          `${fmt(run.p50, 1)} ms, ${fmt(run.runsPerSecond)}/s`,
          `direct spawn ${fmt(direct.p50, 1)} ms, ${fmt(direct.runsPerSecond)}/s`,
          `+${fmt(run.p50 - direct.p50, 1)} ms, ${fmt(ratio, 2)}x`,
          goal,
          [run.p50 - direct.p50, ratio],
        );
      }
    }
    note(
      `scripts: run tool of \`echo ok\` (bash) via the gateway against a raw node:http server spawning it directly; ${rounds} alternating rounds, p50 over all, best round's runs/s (docs/sandbox.md, "Cost").`,
    );
    return results;
  } finally {
    for (const target of targets) await target.server.stop();
    await rm(root, { recursive: true, force: true });
  }
}
