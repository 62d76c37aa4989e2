// Where a hot path's CPU goes: the gateway (the built packages, as `pnpm bench` runs it) is profiled while
// the same load as hotPaths.ts runs, and each sample's function is put in an area — the socket write, node's
// HTTP and streams, Fastify, each gateway folder, each package, GC — printed as CPU µs per request.
// Usage: pnpm build && tsx scripts/benchmark/profileHotPaths.ts   (BENCH_PATHS=text selects paths, as in
// hotPaths.ts; BENCH_SECONDS per profile, default 4; BENCH_FUNCTIONS=1 splits the gateway's areas by function). docs/benchmarks.md, "Hot paths: where the CPU goes".
import { rm } from 'node:fs/promises';
import { loadOnce, openUnlockedSessions, PATHS } from './hotPaths.js';
import { generateSkills, startServer } from './support.js';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
}

const NATIVE_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);

/** The area a sampled function belongs to; undefined for idle time. */
function areaOf({ functionName, url }: ProfileNode['callFrame']): string | undefined {
  if (functionName === '(idle)') return undefined;
  if (functionName === '(garbage collector)') return 'GC';
  if (url === '') return NATIVE_WRITES.has(functionName) ? 'socket write (syscall)' : 'V8 and native';
  if (/^node:(_http|net|internal\/(streams|stream_base|http))/.test(url)) return 'node http and streams';
  if (url.startsWith('node:')) return 'node other';
  const gateway = /apps\/gateway\/dist\/([^/]+)\//.exec(url);
  if (gateway !== null) return `gateway ${gateway[1]}/`;
  const workspace = /packages\/([^/]+)\/dist\//.exec(url);
  if (workspace !== null) return `@skillgate/${workspace[1]}`;
  const dependency = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency !== null)
    return ['fastify', 'find-my-way', 'avvio'].includes(dependency[1] ?? '')
      ? 'fastify'
      : (dependency[1] ?? url);
  return 'other';
}

/**
 * Busy samples per area, as shares of all busy samples; with `byFunction`, per function of the gateway and
 * its packages instead (BENCH_FUNCTIONS=1: which functions an area's time is in).
 */
function areas(profile: Profile, byFunction = false): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map<string, number>();
  let busy = 0;
  for (const id of profile.samples) {
    const node = byId.get(id);
    const area = node === undefined ? 'other' : areaOf(node.callFrame);
    if (area === undefined) continue;
    busy += 1;
    const key =
      byFunction && node !== undefined && (area.startsWith('gateway') || area.startsWith('@skillgate'))
        ? `${area} ${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/dist\//, '')}`
        : area;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return new Map([...counts].map(([area, n]) => [area, n / busy]));
}

const root = await generateSkills(100);
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const only = process.env.BENCH_PATHS ?? '';
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
    const shares = [...areas(profile, process.env.BENCH_FUNCTIONS === '1')].sort((a, b) => b[1] - a[1]);
    process.stdout.write(
      `\n${path.era === 'modern' ? '2026-07-28' : '2025 session'} ${path.label}: ${load.cpuPerRequest.toFixed(1)} µs CPU per request (${load.rps.toFixed(0)} req/s)\n`,
    );
    for (const [area, share] of shares.filter(
      ([, s]) => s >= (process.env.BENCH_FUNCTIONS === '1' ? 0.002 : 0.01),
    ))
      process.stdout.write(
        `  ${(share * load.cpuPerRequest).toFixed(1).padStart(5)} µs  ${(share * 100).toFixed(0).padStart(3)} %  ${area}\n`,
      );
  }
} finally {
  await gateway.stop();
  await rm(root, { recursive: true, force: true });
}
