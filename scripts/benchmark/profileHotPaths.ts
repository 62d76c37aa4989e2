// Where a hot path's CPU goes: the gateway (the built packages, as `pnpm bench` runs it) is profiled while
// the same load as hotPaths.ts runs, and each sample's function is put in an area — the socket write, node's
// HTTP and streams, Fastify, each gateway folder, each package, GC — printed as CPU µs per request.
// Usage: pnpm build && tsx scripts/benchmark/profileHotPaths.ts   (BENCH_PATHS=text selects paths, as in
// hotPaths.ts; BENCH_SECONDS per profile, default 4; BENCH_FUNCTIONS=1 splits the gateway's areas by function,
// =all every area). docs/benchmarks.md, "Hot paths: where the CPU goes". BENCH_PATHS=upstream profiles the
// proxied upstream calls instead (profileUpstreams.ts; BENCH_PATHS=upstream HTTP selects among them).
import { rm } from 'node:fs/promises';
import { loadOnce, openUnlockedSessions, PATHS } from './hotPaths.js';
import { functionSplit, type Profile, printAreas } from './profileAreas.js';
import { profileUpstreams } from './profileUpstreams.js';
import { generateSkills, startServer } from './support.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const only = process.env.BENCH_PATHS ?? '';
const split = functionSplit(process.env.BENCH_FUNCTIONS);
if (only.startsWith('upstream')) {
  const repo = process.env.BENCH_BEFORE_REPO;
  await profileUpstreams({ seconds, only, split, ...(repo === undefined ? {} : { repo }) });
} else await profileHotPaths();

async function profileHotPaths(): Promise<void> {
  const root = await generateSkills(100);
  const gateway = await startServer('gateway', root, 'namespaced', 'off', {
    BENCH_PROMPTS: '1',
    BENCH_PROFILE: '1',
  });
  try {
    const connections = 20;
    const ids = await openUnlockedSessions(gateway.url, connections);
    for (const path of PATHS.filter((p) => `${p.era} ${p.label}`.includes(only))) {
      await loadOnce(gateway.url, path, ids, connections, 1);
      await fetch(`${gateway.url}/__bench/profile/start`, { method: 'POST' });
      const load = await loadOnce(gateway.url, path, ids, connections, seconds);
      const profile = (await (
        await fetch(`${gateway.url}/__bench/profile/stop`, { method: 'POST' })
      ).json()) as Profile;
      printAreas(
        `${path.era === 'modern' ? '2026-07-28' : '2025 session'} ${path.label}: ${load.cpuPerRequest.toFixed(1)} µs CPU per request (${load.rps.toFixed(0)} req/s)`,
        profile,
        load.cpuPerRequest,
        split,
      );
    }
  } finally {
    await gateway.stop();
    await rm(root, { recursive: true, force: true });
  }
}
