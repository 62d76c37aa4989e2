// The upstream-overhead and upstream-peers phases of `pnpm bench` (`pnpm bench:upstreams` runs both): a
// trivial tool of an upstream MCP server through skillgate against calling it directly (upstreamOverhead.ts),
// and skillgate in front of a stdio server against supergateway and mcp-proxy (upstreamPeers.ts).
import type { BenchContext } from './context.js';
import { TARGETS } from './targets.js';
import { type CallFigures, type UpstreamOverheadResult, upstreamOverhead } from './upstreamOverhead.js';
import { type PeerFigures, type UpstreamPeersResult, upstreamPeers } from './upstreamPeers.js';

/** The upstream-peers phase: skillgate in front of a stdio server against supergateway and mcp-proxy. */
export async function upstreamPeersPhase(context: BenchContext): Promise<void> {
  context.result('upstream_peers', await peerRows(context));
}

async function peerRows(options: BenchContext): Promise<UpstreamPeersResult> {
  const { row, fmt, quick } = options;
  const result = await upstreamPeers({ samples: quick ? 150 : 600, seconds: quick ? 3 : 9, rounds: 3 });
  const show = (
    f: PeerFigures | undefined,
    what: (f: Exclude<PeerFigures, { unsupported: string }>) => string,
  ) => (f === undefined ? 'n/a' : 'unsupported' in f ? 'not served' : what(f));
  for (const [era, ways] of Object.entries(result.eras)) {
    const { skillgate, supergateway, 'mcp-proxy': mcpProxy } = ways;
    if ('unsupported' in skillgate) continue;
    const peers = [supergateway, mcpProxy].filter(
      (f): f is Exclude<PeerFigures, { unsupported: string }> => !('unsupported' in f),
    );
    const fastest = Math.max(...peers.map((f) => f.callsPerSecond));
    const ratio = skillgate.callsPerSecond / fastest;
    row(
      'upstreams',
      `stdio server on HTTP, calls/s (${result.concurrency} in flight), ${era}`,
      fmt(skillgate.callsPerSecond),
      `supergateway ${show(supergateway, (f) => fmt(f.callsPerSecond))} / mcp-proxy ${show(mcpProxy, (f) => fmt(f.callsPerSecond))}`,
      peers.length === 0 ? '' : `${fmt(ratio, 2)}x`,
      TARGETS.stdioPeers,
      peers.length === 0 ? undefined : ratio,
    );
    row(
      'upstreams',
      `stdio server on HTTP, p50 ms / proxy CPU ms per call, ${era}`,
      `${fmt(skillgate.p50Ms, 2)} / ${fmt(skillgate.gatewayCpuMsPerCall, 3)}`,
      `supergateway ${show(supergateway, (f) => `${fmt(f.p50Ms, 2)} / ${fmt(f.gatewayCpuMsPerCall, 3)}`)}; mcp-proxy ${show(mcpProxy, (f) => `${fmt(f.p50Ms, 2)} / ${fmt(f.gatewayCpuMsPerCall, 3)}`)}`,
      '',
      'reported',
    );
  }
  const unsupported = Object.entries(result.eras).flatMap(([era, ways]) =>
    Object.entries(ways).flatMap(([name, f]) =>
      'unsupported' in f ? [`${name} in ${era}: ${f.unsupported}`] : [],
    ),
  );
  options.note(
    `Stdio peers: the test upstream (stdio) behind skillgate (eager: skill_local_call_echo in 2025, the catalog's call_skill_tool in 2026-07-28), supergateway ${result.versions.supergateway} (--stdio --outputTransport streamableHttp --stateful) and mcp-proxy ${result.versions['mcp-proxy']} (--server stream), each called with the same v2 SDK client, a 2025 session (initialize) and a 2026-07-28 one (server/discover), in alternation (3 rounds); CPU is each proxy process's own (its stdio server not counted). In 2026-07-28 (no sessions) supergateway starts the stdio server anew for every request: it is measured alone after the others, briefly.${unsupported.length === 0 ? '' : ` Not served: ${unsupported.join('; ')}.`}`,
  );
  return result;
}

/** The upstream-overhead phase: a trivial tool through skillgate against calling it directly. */
export async function upstreamOverheadPhase(context: BenchContext): Promise<void> {
  context.result('upstream_overhead', await overheadRows(context));
}

async function overheadRows(options: BenchContext): Promise<UpstreamOverheadResult> {
  const { row, fmt, quick } = options;
  const result = await upstreamOverhead({
    samples: quick ? 150 : 600,
    seconds: quick ? 3 : 9,
    rounds: 3,
    ...(options.beforeRepo === undefined ? {} : { before: options.beforeRepo }),
  });
  const { http, stdio, concurrency, before } = result;
  const added = http.gateway.p50Ms - http.direct.p50Ms;
  const signed = (n: number) => `${n >= 0 ? '+' : '-'}${fmt(Math.abs(n), 2)}`;
  row(
    'upstreams',
    'HTTP upstream call p50 via skillgate (2026-07-28)',
    `${fmt(http.gateway.p50Ms, 2)} ms`,
    `direct ${fmt(http.direct.p50Ms, 2)} ms`,
    `${signed(added)} ms`,
    TARGETS.upstreamCallLatency,
    added,
  );
  const share = http.gateway.callsPerSecond / http.direct.callsPerSecond;
  row(
    'upstreams',
    `HTTP upstream calls/s via skillgate (${concurrency} in flight)`,
    fmt(http.gateway.callsPerSecond),
    `direct ${fmt(http.direct.callsPerSecond)}`,
    `${fmt(share * 100, 1)}%`,
    TARGETS.upstreamCallThroughput,
    share,
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
    `${fmt(http.gateway.gatewayCpuMsPerCall * 1000)} / ${fmt(http.gatewayLegacy.gatewayCpuMsPerCall * 1000)} µs`,
    '',
    '',
    'reported',
  );
  // The floor: a transparent node:http reverse proxy in front of the same upstream, called the same way.
  const floor = http.rawProxy;
  row(
    'upstreams',
    'HTTP upstream calls/s / CPU per call via a raw node:http proxy (floor)',
    `${fmt(floor.callsPerSecond)} / ${fmt(floor.gatewayCpuMsPerCall * 1000)} µs`,
    `direct ${fmt(http.direct.callsPerSecond)}`,
    `${fmt((floor.callsPerSecond / http.direct.callsPerSecond) * 100, 1)}%; skillgate ${fmt(http.gateway.gatewayCpuMsPerCall / floor.gatewayCpuMsPerCall, 2)}x / ${fmt(http.gatewayLegacy.gatewayCpuMsPerCall / floor.gatewayCpuMsPerCall, 2)}x its CPU`,
    'reported',
  );
  row(
    'upstreams',
    'gateway CPU per proxied stdio call (2025 session)',
    `${fmt(stdio.gateway.gatewayCpuMsPerCall * 1000)} µs`,
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
  if (before !== undefined) {
    const change = (now: CallFigures, then: CallFigures) =>
      `${fmt(then.gatewayCpuMsPerCall * 1000)} → ${fmt(now.gatewayCpuMsPerCall * 1000)} µs (${signed(((now.gatewayCpuMsPerCall - then.gatewayCpuMsPerCall) / then.gatewayCpuMsPerCall) * 100)} %)`;
    const share = (f: CallFigures) => `${fmt((f.callsPerSecond / http.direct.callsPerSecond) * 100, 1)}%`;
    options.note(
      `Before (--before, same rounds): gateway CPU per proxied call, HTTP 2026-07-28 ${change(http.gateway, before.http.gateway)}, HTTP 2025 session ${change(http.gatewayLegacy, before.http.gatewayLegacy)}, stdio ${change(stdio.gateway, before.stdio.gateway)}; HTTP calls/s share of direct ${share(before.http.gateway)} → ${share(http.gateway)} (2026-07-28), ${share(before.http.gatewayLegacy)} → ${share(http.gatewayLegacy)} (2025 session).`,
    );
  }
  options.note(
    'Upstream overhead: echo of the test upstream (packages/testkit/fixtures/upstreams/testUpstream.mjs), called with the same v2 SDK client directly and through skillgate, in alternation (3 rounds). HTTP: 2026-07-28 on both hops (through skillgate by call_skill_tool), a 2025-era session for comparison, and the floor: a transparent node:http reverse proxy (servers.ts raw-proxy, kept-alive, bodies passed through unparsed; its CPU counted in its own process); stdio: 2025 era on both hops (stdio servers open with initialize).',
  );
  return result;
}
