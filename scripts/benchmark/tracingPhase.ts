// What tracing costs on the hot paths, in one run: the gateway with tracing off (the default), the same
// gateway with every request traced and exported to a local OTLP/HTTP sink, and "before": a build of the
// commit before tracing was added, in a worktree of its own. Three alternating rounds per side, best kept.
// `pnpm bench:tracing` runs it alone; BENCH_BEFORE_REPO names an existing checkout to use as "before".
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadOnce, PATHS, SKILL } from './hotPaths.js';
import { generateSkills, openSessions, rpc, startServer } from './support.js';

const REPO = join(import.meta.dirname, '../..');
// The first commit that has tracing; "before" is its parent.
const TRACING_FILE = 'apps/gateway/src/observability/tracing.ts';

/** One path's requests per second and CPU µs per request, tracing off, on, and before tracing existed. */
export interface TracingRow {
  readonly path: string;
  readonly off: { rps: number; cpu: number };
  readonly on: { rps: number; cpu: number };
  readonly before?: { rps: number; cpu: number };
}

/** A checkout of the parent of the commit that added tracing, installed and built (reused when present). */
function beforeRepo(): string | undefined {
  if (process.env.BENCH_BEFORE_REPO !== undefined) return process.env.BENCH_BEFORE_REPO;
  const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
  const added = git('log', '--format=%H', '--diff-filter=A', '--', TRACING_FILE).split('\n').pop();
  if (added === undefined || added === '') return undefined;
  const dir = join(REPO, '.bench-before');
  if (!existsSync(join(dir, 'apps/gateway/dist/index.js'))) {
    if (!existsSync(dir)) git('worktree', 'add', '--detach', dir, `${added}^`);
    const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, stdio: 'inherit' });
    run('pnpm', ['install', '--frozen-lockfile', '--prefer-offline']);
    run('pnpm', ['build']);
  }
  return dir;
}

export async function tracingCost(root: string, seconds: number, connections = 20): Promise<TracingRow[]> {
  // The collector: accepts every export and drops it (what is measured is the gateway's side).
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;
  const before = beforeRepo();
  const sides = {
    off: await startServer('gateway', root, 'namespaced', 'off'),
    on: await startServer('gateway', root, 'namespaced', 'off', { BENCH_TRACING: endpoint }),
    ...(before === undefined
      ? {}
      : { before: await startServer('gateway', root, 'namespaced', 'off', {}, before) }),
  };
  try {
    const sessions: Record<string, readonly string[]> = {};
    for (const [name, server] of Object.entries(sides)) {
      const { ids } = await openSessions(server.url, connections);
      for (const id of ids)
        await rpc(server.url, id, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: `skill_${SKILL}_get_info`, arguments: {} },
        });
      sessions[name] = ids;
    }
    const rows: TracingRow[] = [];
    const wanted = PATHS.filter(
      (p) =>
        (p.era === 'legacy' && p.label.includes('get_info')) ||
        (p.era === 'modern' && p.label === 'tools/list'),
    );
    for (const path of wanted) {
      const best: Record<string, { rps: number; cpu: number }> = {};
      for (let round = 0; round < 3; round++) {
        for (const [name, server] of Object.entries(sides)) {
          const run = await loadOnce(server.url, path, sessions[name] ?? [], connections, seconds);
          const known = best[name];
          if (known === undefined || run.rps > known.rps)
            best[name] = { rps: run.rps, cpu: run.cpuPerRequest };
        }
      }
      const { off, on } = best;
      if (off === undefined || on === undefined) continue;
      rows.push({
        path: `${path.era} ${path.label}`,
        off,
        on,
        ...(best.before === undefined ? {} : { before: best.before }),
      });
    }
    return rows;
  } finally {
    for (const server of Object.values(sides)) await server.stop();
    sink.close();
  }
}

// Standalone: the tracing rows alone (BENCH_SECONDS per round, default 3).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // Under the build before tracing's cap of 100 listed tools (index.ts says why).
  const root = await generateSkills(98);
  try {
    for (const r of await tracingCost(root, Number(process.env.BENCH_SECONDS ?? 3))) {
      const fmt = (side: { rps: number; cpu: number }) =>
        `${side.rps.toFixed(0)} req/s, ${side.cpu.toFixed(0)} µs`;
      process.stdout.write(
        `${r.path.padEnd(28)} off ${fmt(r.off)} | on ${fmt(r.on)} (${(r.on.rps / r.off.rps).toFixed(2)}×)` +
          (r.before === undefined
            ? ''
            : ` | before ${fmt(r.before)} (off ${(r.off.rps / r.before.rps).toFixed(2)}×)`) +
          '\n',
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
