// The hot-paths phase of `pnpm bench`: every hot call path of both eras (100 skills, 20 connections) against
// a raw node:http server and a bare Fastify route, both sending the gateway's own answer bytes for that
// request, id spliced in (hotPaths.ts).
import type { BenchContext } from './context.js';
import { hotPaths } from './hotPaths.js';
import { TARGETS } from './targets.js';

/** Rows of the hot paths group: each path's share of its raw ceiling. */
export async function hotPathsPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const measured = await hotPaths(await context.skills(100), context.quick ? 1 : 3);
  context.result('hot_paths', measured);
  for (const path of measured) {
    row(
      'hot paths',
      `${path.era === 'modern' ? '2026-07-28' : '2025 session'} ${path.label} req/s (p50 / p99 ms)`,
      `${fmt(path.rps)} (${path.p50} / ${path.p99})`,
      `raw node:http ${fmt(path.ceilingRps)}; CPU ${fmt(path.cpuMicros)} vs ${fmt(path.ceilingCpuMicros)} µs/req (${fmt(path.cpuShare, 2)}); Fastify route ${fmt(path.fastify.rps)} (${fmt(path.fastify.share, 2)}, ${fmt(path.fastify.cpuMicros)} µs/req)${path.sdkPath === undefined ? '' : `; SDK path ${fmt(path.sdkPath.rps)} (${fmt(path.sdkPath.share, 2)})`}`,
      fmt(path.share, 2),
      TARGETS.hotPathShare,
      path.share,
    );
    if (path.errors > 0)
      row('hot paths', `${path.label} errors`, String(path.errors), '', '', TARGETS.noErrors, path.errors);
  }
}
