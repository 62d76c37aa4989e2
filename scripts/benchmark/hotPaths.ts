// Every hot call path of both eras against its own ceilings, in one run: for each request the gateway's
// answer is captured once, then a raw node:http server (servers.ts `raw-replay`: parse the body, write the
// bytes with Content-Length) and a bare Fastify route (`fastify-replay`) send exactly those bytes back with
// only the JSON-RPC id spliced in. share = gateway req/s ÷ raw ceiling req/s on the same request, connections
// and duration, measured in alternation so that all see the same machine load.
import { rm } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { generateSkills, openSessions, rpc, startServer } from './support.js';

const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const ACCEPT = 'application/json, text/event-stream';

/** One request of one era, as a client sends it. */
export interface HotPath {
  readonly label: string;
  readonly era: 'modern' | 'legacy';
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The standard Mcp-Name header of 2026-07-28 requests that name a tool, resource or prompt. */
  readonly name?: string;
}

/** One path's figures: the gateway and its same-bytes ceilings. */
export interface HotPathResult {
  readonly label: string;
  readonly era: 'modern' | 'legacy';
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  /** The raw node:http ceiling. */
  readonly ceilingRps: number;
  readonly share: number;
  /** The bare Fastify route sending the same bytes. */
  readonly fastify: { readonly rps: number; readonly share: number; readonly cpuMicros: number };
  /** The gateway's CPU time per request, in microseconds, and the raw ceiling's. */
  readonly cpuMicros: number;
  readonly ceilingCpuMicros: number;
  /** ceilingCpuMicros ÷ cpuMicros: the share by CPU cost rather than by throughput. */
  readonly cpuShare: number;
  /** 2026-07-28 only: the same request with the direct path off (the SDK's createMcpHandler answers). */
  readonly sdkPath?: { readonly rps: number; readonly share: number };
  readonly bytes: number;
  readonly errors: number;
}

export const SKILL = 'gen-00000';
export const PATHS: readonly HotPath[] = [
  { label: 'tools/list', era: 'modern', method: 'tools/list', params: {} },
  {
    label: 'tools/call get_info',
    era: 'modern',
    method: 'tools/call',
    params: { name: `skill_${SKILL}_get_info`, arguments: {} },
    name: `skill_${SKILL}_get_info`,
  },
  {
    label: 'tools/call read_skill_file',
    era: 'modern',
    method: 'tools/call',
    params: { name: 'read_skill_file', arguments: { skill: SKILL, path: 'references/guide.md' } },
    name: 'read_skill_file',
  },
  {
    label: 'resources/read skill://',
    era: 'modern',
    method: 'resources/read',
    params: { uri: `skill://${SKILL}/references/guide.md` },
    name: `skill://${SKILL}/references/guide.md`,
  },
  {
    label: 'skills/get',
    era: 'modern',
    method: 'skills/get',
    params: { uri: `skill://${SKILL}/SKILL.md` },
  },
  {
    label: 'prompts/get',
    era: 'modern',
    method: 'prompts/get',
    params: { name: SKILL },
    name: SKILL,
  },
  { label: 'skills/list', era: 'modern', method: 'skills/list', params: {} },
  { label: 'server/discover', era: 'modern', method: 'server/discover', params: {} },
  { label: 'tools/list', era: 'legacy', method: 'tools/list', params: {} },
  {
    label: 'tools/call get_info',
    era: 'legacy',
    method: 'tools/call',
    params: { name: `skill_${SKILL}_get_info`, arguments: {} },
  },
  {
    label: 'tools/call read tool',
    era: 'legacy',
    method: 'tools/call',
    params: { name: `skill_${SKILL}_read_guide_md`, arguments: {} },
  },
  {
    label: 'resources/read skill://',
    era: 'legacy',
    method: 'resources/read',
    params: { uri: `skill://${SKILL}/references/guide.md` },
  },
];

const bodyOf = (path: HotPath) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: path.method,
    params: path.era === 'modern' ? { ...path.params, _meta: META } : path.params,
  });

const headersOf = (path: HotPath, session?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  ...(path.era === 'modern'
    ? { 'mcp-protocol-version': MODERN, 'mcp-method': path.method }
    : { 'mcp-protocol-version': '2025-11-25' }),
  ...(path.era === 'modern' && path.name !== undefined ? { 'mcp-name': path.name } : {}),
  ...(session === undefined ? {} : { 'mcp-session-id': session }),
});

export async function loadOnce(
  url: string,
  path: HotPath,
  sessions: readonly string[],
  connections: number,
  seconds: number,
) {
  let next = 0;
  const cpuBefore = await cpuMicros(url);
  const result = await autocannon({
    url: `${url}/mcp`,
    method: 'POST',
    connections,
    duration: seconds,
    body: bodyOf(path),
    headers: headersOf(path),
    // 2025-era: each keep-alive connection speaks for its own session.
    setupClient: (client) => {
      if (path.era === 'legacy') client.setHeaders(headersOf(path, sessions[next++ % sessions.length]));
    },
  });
  const requests = result.requests.total;
  return {
    // The two /__bench/cpu requests cost a few µs each: noise against thousands of requests.
    cpuPerRequest: requests === 0 ? Number.NaN : ((await cpuMicros(url)) - cpuBefore) / requests,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

/** A benchmark server's CPU time so far (servers.ts `/__bench/cpu`). */
async function cpuMicros(url: string): Promise<number> {
  return ((await (await fetch(`${url}/__bench/cpu`)).json()) as { micros: number }).micros;
}

/** Opens `count` 2025-era sessions on a gateway, each having unlocked the measured skill (its get_info). */
export async function openUnlockedSessions(url: string, count: number): Promise<readonly string[]> {
  const { ids } = await openSessions(url, count);
  for (const id of ids)
    await rpc(url, id, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: `skill_${SKILL}_get_info`, arguments: {} },
    });
  return ids;
}

/** The gateway's answer to a path (the bytes the ceiling replays); throws on an error answer. */
async function capture(url: string, path: HotPath, session: string): Promise<{ body: string; type: string }> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: headersOf(path, path.era === 'legacy' ? session : undefined),
    body: bodyOf(path),
  });
  const body = await response.text();
  if (!response.ok || body.includes('"error":{'))
    throw new Error(`${path.era} ${path.label}: ${response.status} ${body.slice(0, 300)}`);
  return { body, type: response.headers.get('content-type') ?? 'application/json' };
}

/**
 * Measures every hot path on a gateway serving `root` (skills named gen-NNNNN, prompts on) against a replay
 * ceiling of its own answers. Legacy paths use `connections` sessions that have unlocked the skill first.
 */
export async function hotPaths(root: string, seconds: number, connections = 20): Promise<HotPathResult[]> {
  const gateway = await startServer('gateway', root, 'namespaced', 'off', { BENCH_PROMPTS: '1' });
  const sdkPath = await startServer('gateway', root, 'namespaced', 'off', {
    BENCH_PROMPTS: '1',
    BENCH_DIRECT: '0',
  });
  const ceiling = await startServer('raw-replay', root);
  const fastify = await startServer('fastify-replay', root);
  try {
    const ids = await openUnlockedSessions(gateway.url, connections);
    const results: HotPathResult[] = [];
    // BENCH_PATHS=text: only the paths whose "era label" contains it (e.g. "legacy", "modern tools/call").
    const only = process.env.BENCH_PATHS ?? '';
    for (const path of PATHS.filter((p) => `${p.era} ${p.label}`.includes(only))) {
      const answer = await capture(gateway.url, path, ids[0] ?? '');
      for (const replay of [ceiling, fastify])
        await fetch(`${replay.url}/__bench/replay`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...answer, id: 7 }),
        });
      // Three alternating rounds each; the best round of each side is kept (the machine is shared with the load).
      const mine = [];
      const theirs = [];
      const framework = [];
      const sdk = [];
      for (let round = 0; round < 3; round++) {
        mine.push(await loadOnce(gateway.url, path, ids, connections, seconds));
        theirs.push(await loadOnce(ceiling.url, path, ids, connections, seconds));
        framework.push(await loadOnce(fastify.url, path, ids, connections, seconds));
        if (path.era === 'modern') sdk.push(await loadOnce(sdkPath.url, path, ids, connections, seconds));
      }
      const best = mine.reduce((a, b) => (b.rps > a.rps ? b : a));
      const ceilingRps = Math.max(...theirs.map((t) => t.rps));
      const cpu = Math.min(...mine.map((m) => m.cpuPerRequest));
      const ceilingCpu = Math.min(...theirs.map((t) => t.cpuPerRequest));
      const fastifyRps = Math.max(...framework.map((t) => t.rps));
      const sdkRps = sdk.length === 0 ? undefined : Math.max(...sdk.map((t) => t.rps));
      results.push({
        label: path.label,
        era: path.era,
        rps: best.rps,
        p50: best.p50,
        p99: best.p99,
        ceilingRps,
        share: best.rps / ceilingRps,
        fastify: {
          rps: fastifyRps,
          share: best.rps / fastifyRps,
          cpuMicros: Math.min(...framework.map((t) => t.cpuPerRequest)),
        },
        cpuMicros: cpu,
        ceilingCpuMicros: ceilingCpu,
        cpuShare: ceilingCpu / cpu,
        ...(sdkRps === undefined ? {} : { sdkPath: { rps: sdkRps, share: sdkRps / ceilingRps } }),
        bytes: Buffer.byteLength(answer.body),
        errors: mine.reduce((n, m) => n + m.errors, 0),
      });
    }
    return results;
  } finally {
    await gateway.stop();
    await sdkPath.stop();
    await ceiling.stop();
    await fastify.stop();
  }
}

// Standalone: the hot-path table alone (BENCH_SECONDS per round, default 3).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = await generateSkills(100);
  try {
    const rows = await hotPaths(root, Number(process.env.BENCH_SECONDS ?? 3));
    for (const r of rows)
      process.stdout.write(
        `${r.era.padEnd(7)} ${r.label.padEnd(28)} ${r.rps.toFixed(0).padStart(6)} req/s  raw ${r.share.toFixed(2)}  fastify ${r.fastify.share.toFixed(2)}  cpu ${r.cpuMicros.toFixed(0)} µs vs raw ${r.ceilingCpuMicros.toFixed(0)} / fastify ${r.fastify.cpuMicros.toFixed(0)} µs  cpuShare ${r.cpuShare.toFixed(2)}${r.sdkPath === undefined ? '' : `  sdk ${r.sdkPath.share.toFixed(2)}`}\n`,
      );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
