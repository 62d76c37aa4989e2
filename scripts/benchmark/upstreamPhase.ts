// The upstream-overhead phase of pnpm bench (`pnpm bench:upstreams` runs it alone): a trivial tool of an
// upstream MCP server through skillgate against calling it directly (upstreamOverhead.ts).
import type { PhaseOptions } from './support.js';
import { type UpstreamOverheadResult, upstreamOverhead } from './upstreamOverhead.js';

/** Upstream servers behind skills: a trivial tool through skillgate against calling it directly. */
export async function upstreamOverheadBench(options: PhaseOptions): Promise<UpstreamOverheadResult> {
  const { row, fmt, quick } = options;
  const result = await upstreamOverhead({
    samples: quick ? 150 : 600,
    seconds: quick ? 3 : 9,
    rounds: 3,
  });
  const { http, stdio, concurrency } = result;
  const added = http.gateway.p50Ms - http.direct.p50Ms;
  const signed = (n: number) => `${n >= 0 ? '+' : '-'}${fmt(Math.abs(n), 2)}`;
  row(
    'upstreams',
    'HTTP upstream call p50 via skillgate (2026-07-28)',
    `${fmt(http.gateway.p50Ms, 2)} ms`,
    `direct ${fmt(http.direct.p50Ms, 2)} ms`,
    `${signed(added)} ms`,
    '<= +1 ms',
    added <= 1,
  );
  const share = http.gateway.callsPerSecond / http.direct.callsPerSecond;
  row(
    'upstreams',
    `HTTP upstream calls/s via skillgate (${concurrency} in flight)`,
    fmt(http.gateway.callsPerSecond),
    `direct ${fmt(http.direct.callsPerSecond)}`,
    `${fmt(share * 100, 1)}%`,
    '>= 70%',
    share >= 0.7,
  );
  row(
    'upstreams',
    'HTTP upstream call p50 / calls/s via skillgate (2025 session)',
    `${fmt(http.gatewayLegacy.p50Ms, 2)} ms / ${fmt(http.gatewayLegacy.callsPerSecond)}`,
    `direct ${fmt(http.direct.p50Ms, 2)} ms / ${fmt(http.direct.callsPerSecond)}`,
    `${signed(http.gatewayLegacy.p50Ms - http.direct.p50Ms)} ms / ${fmt((http.gatewayLegacy.callsPerSecond / http.direct.callsPerSecond) * 100, 1)}%`,
    'reported',
  );
  row(
    'upstreams',
    'gateway CPU per proxied HTTP call, 2026-07-28 / 2025 session',
    `${fmt(http.gateway.gatewayCpuMsPerCall, 2)} / ${fmt(http.gatewayLegacy.gatewayCpuMsPerCall, 2)} ms`,
    '',
    '',
    'reported',
  );
  row(
    'upstreams',
    'stdio upstream call p50 via skillgate',
    `${fmt(stdio.gateway.p50Ms, 2)} ms`,
    `direct ${fmt(stdio.direct.p50Ms, 2)} ms`,
    `${signed(stdio.gateway.p50Ms - stdio.direct.p50Ms)} ms`,
    'reported',
  );
  row(
    'upstreams',
    `stdio upstream calls/s via skillgate (${concurrency} in flight)`,
    fmt(stdio.gateway.callsPerSecond),
    `direct ${fmt(stdio.direct.callsPerSecond)}`,
    `${fmt((stdio.gateway.callsPerSecond / stdio.direct.callsPerSecond) * 100, 1)}%`,
    'reported',
  );
  options.note(
    'Upstream overhead: echo of the test upstream (packages/upstreams/test/fixtures/testUpstream.mjs), called with the same v2 SDK client directly and through skillgate, in alternation (3 rounds). HTTP: 2026-07-28 on both hops (through skillgate by call_skill_tool), and a 2025-era session for comparison; stdio: 2025 era on both hops (stdio servers open with initialize).',
  );
  return result;
}
