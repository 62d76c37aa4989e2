// What tracing costs on the hot paths, in one run: the gateway with tracing off (the default), the same
// gateway with every request traced and exported to a local OTLP/HTTP sink, and "before": a build of the
// commit before tracing was added, in a worktree of its own. Three alternating rounds per side, best kept.
// `pnpm bench --only tracing` runs it alone; `--before <checkout>` names an existing checkout as "before".
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { BenchContext } from './context.js';
import { loadOnce, PATHS, SKILL } from './hotPaths.js';
import { openSessions, rpc, startServer } from './support.js';
import { TARGETS } from './targets.js';

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
function beforeRepo(given: string | undefined): string | undefined {
  if (given !== undefined) return given;
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

async function tracingCost(
  root: string,
  seconds: number,
  given: string | undefined,
  connections = 20,
): Promise<TracingRow[]> {
  // The collector: accepts every export and drops it (what is measured is the gateway's side).
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;
  const before = beforeRepo(given);
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

/** The tracing phase: rows of tracing off against before tracing existed, and every request traced. */
export async function tracingPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  // 98 skills: the build before tracing caps first lists at 100 tools and its servers cannot lift the cap, so
  // both sides serve the same full catalog list (98 get_info tools + 2) only under it.
  const root = await context.skills(98);
  const measured = await tracingCost(root, context.quick ? 1 : 3, context.beforeRepo);
  context.result('tracing', measured);
  for (const r of measured) {
    row(
      'tracing',
      `${r.path} req/s, tracing off`,
      `${fmt(r.off.rps)} (${fmt(r.off.cpu)} µs/req)`,
      r.before === undefined ? '' : `before tracing ${fmt(r.before.rps)} (${fmt(r.before.cpu)} µs/req)`,
      r.before === undefined ? '' : fmt(r.off.rps / r.before.rps, 2),
      TARGETS.tracingOff,
      r.before === undefined ? undefined : r.off.rps / r.before.rps,
    );
    row(
      'tracing',
      `${r.path} req/s, every request traced`,
      `${fmt(r.on.rps)} (${fmt(r.on.cpu)} µs/req)`,
      `off ${fmt(r.off.rps)}`,
      fmt(r.on.rps / r.off.rps, 2),
      '',
    );
  }
}
