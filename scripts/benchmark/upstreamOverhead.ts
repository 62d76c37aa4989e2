// Proxy overhead of upstream MCP servers behind skills (docs/upstreams.md): a trivial tool (echo of the
// test upstream) called directly and through skillgate with the same client library (the v2 SDK client) in
// the same protocol era, over streamable HTTP and over stdio. The ways are measured in alternation (rounds),
// so load from elsewhere on the machine falls on all of them alike.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { startHttpUpstream, TEST_UPSTREAM } from '@skillgate/testkit';
import { percentile, startServer } from './support.js';

/** Latency and throughput of one way of calling the tool. */
export interface CallFigures {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly callsPerSecond: number;
  /** CPU time (user + system) the gateway process spent per call: robust to load from elsewhere. */
  readonly gatewayCpuMsPerCall: number;
}

/** What the rows print. */
export interface UpstreamOverheadResult {
  readonly http: {
    readonly direct: CallFigures;
    /** Through skillgate, 2026-07-28 on both hops (as direct). */
    readonly gateway: CallFigures;
    /** Through skillgate from a 2025-era session. */
    readonly gatewayLegacy: CallFigures;
    /** Through a transparent node:http reverse proxy (servers.ts `raw-proxy`): the floor of a proxied call. */
    readonly rawProxy: CallFigures;
  };
  readonly stdio: { readonly direct: CallFigures; readonly gateway: CallFigures };
  /** The same ways through another checkout's gateway (BENCH_BEFORE_REPO), measured in the same rounds. */
  readonly before?: {
    readonly http: { readonly gateway: CallFigures; readonly gatewayLegacy: CallFigures };
    readonly stdio: { readonly gateway: CallFigures };
  };
  readonly concurrency: number;
}

/** One call of a measured way. */
export type Call = () => Promise<unknown>;

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * 10;
}

/** How compare measures: samples, seconds and rounds, calls in flight, whose CPU is counted. */
export interface CompareOptions {
  readonly samples: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly concurrency: number;
  /** The process whose CPU each call is charged with (the gateway), unless `pids` names another for a way. */
  readonly gatewayPid: number;
  readonly pids?: Readonly<Record<string, number>>;
  /** Calls of each way before measuring (default 50). */
  readonly warmup?: number;
}

/** Latency (one call at a time) and throughput (`concurrency` in flight) of each way, in alternation. */
export async function compare(
  ways: Readonly<Record<string, Call>>,
  options: CompareOptions,
): Promise<Record<string, CallFigures>> {
  const latencies: Record<string, number[]> = {};
  // Per way: calls in the throughput windows and their seconds; all measured calls and the gateway's CPU.
  const tally: Record<string, { windowCalls: number; seconds: number; calls: number; cpuMs: number }> = {};
  for (const [name, call] of Object.entries(ways)) {
    for (let i = 0; i < (options.warmup ?? 50); i++) await call();
    latencies[name] = [];
    tally[name] = { windowCalls: 0, seconds: 0, calls: 0, cpuMs: 0 };
  }
  const perRound = Math.ceil(options.samples / options.rounds);
  for (let round = 0; round < options.rounds; round++) {
    for (const [name, call] of Object.entries(ways)) {
      const list = latencies[name] ?? [];
      const t = tally[name] ?? { windowCalls: 0, seconds: 0, calls: 0, cpuMs: 0 };
      const pid = options.pids?.[name] ?? options.gatewayPid;
      const cpuBefore = cpuMs(pid);
      for (let i = 0; i < perRound; i++) {
        const began = performance.now();
        await call();
        list.push(performance.now() - began);
      }
      const started = performance.now();
      const until = started + (options.seconds / options.rounds) * 1000;
      let count = 0;
      await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          while (performance.now() < until) {
            await call();
            count += 1;
          }
        }),
      );
      t.seconds += (performance.now() - started) / 1000;
      t.windowCalls += count;
      t.calls += count + perRound;
      t.cpuMs += cpuMs(pid) - cpuBefore;
    }
  }
  return Object.fromEntries(
    Object.keys(ways).map((name) => {
      const t = tally[name] ?? { windowCalls: 0, seconds: 1, calls: 1, cpuMs: 0 };
      const figures: CallFigures = {
        p50Ms: percentile(latencies[name] ?? [], 50),
        p99Ms: percentile(latencies[name] ?? [], 99),
        callsPerSecond: t.windowCalls / t.seconds,
        gatewayCpuMsPerCall: t.cpuMs / t.calls,
      };
      return [name, figures];
    }),
  );
}

/** A call of the echo tool named `name` (the upstream's own, or the gateway's `skill_<id>_call_echo`). */
export const callTool =
  (client: Client, name: string): Call =>
  () =>
    client.callTool({ name, arguments: { text: 'x' } });
/** A call of the upstream's echo through the catalog's `call_skill_tool` (2026-07-28). */
export const callThroughCatalog =
  (client: Client, skill: string): Call =>
  () =>
    client.callTool({
      name: 'call_skill_tool',
      arguments: { skill, tool: 'echo', arguments: { text: 'x' } },
    });

const figuresOf = (all: Record<string, CallFigures>, name: string): CallFigures => {
  const figures = all[name];
  if (figures === undefined) throw new Error(`no figures for ${name}`);
  return figures;
};

/** Runs the direct and proxied measurements. */
export async function upstreamOverhead(options: {
  readonly samples: number;
  readonly seconds: number;
  readonly rounds: number;
  /** Another checkout (a build of older code) whose gateway is measured beside this one's. */
  readonly before?: string;
}): Promise<UpstreamOverheadResult> {
  const empty = await mkdtemp(join(tmpdir(), 'skillgate-bench-upstreams-'));
  const upstream = await startHttpUpstream();
  const clients: Client[] = [];
  const stops: Array<() => Promise<void> | void> = [upstream.stop];
  const concurrency = 8;
  try {
    const connect = async (
      transport: StreamableHTTPClientTransport | StdioClientTransport,
      modern: boolean,
    ) => {
      const client = new Client(
        { name: 'skillgate-bench', version: '1.0.0' },
        modern ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await client.connect(transport);
      clients.push(client);
      return client;
    };
    const env = {
      BENCH_UPSTREAMS: JSON.stringify([
        { id: 'remote', url: upstream.url, tools: ['echo'], max_concurrent: 64 },
        { id: 'local', command: [process.execPath, TEST_UPSTREAM], tools: ['echo'], max_concurrent: 64 },
      ]),
    };
    const gateway = await startServer('gateway', empty, 'eager', 'off', env);
    stops.push(gateway.stop);
    const gatewayUrl = new URL(`${gateway.url}/mcp`);
    const viaModern = await connect(new StreamableHTTPClientTransport(gatewayUrl), true);
    const viaLegacy = await connect(new StreamableHTTPClientTransport(gatewayUrl), false);
    const direct = await connect(new StreamableHTTPClientTransport(new URL(upstream.url)), true);
    const proxy = await startServer('raw-proxy', upstream.url);
    stops.push(proxy.stop);
    const viaProxy = await connect(
      new StreamableHTTPClientTransport(new URL(new URL(upstream.url).pathname, proxy.url)),
      true,
    );
    // stdio servers open with initialize (the pool does the same), so both hops of stdio are 2025 era.
    const directStdio = await connect(
      new StdioClientTransport({ command: process.execPath, args: [TEST_UPSTREAM], stderr: 'ignore' }),
      false,
    );
    // The older gateway's ways, in the same rounds (their CPU is its process's).
    const older =
      options.before === undefined
        ? undefined
        : await (async (repo: string) => {
            const server = await startServer('gateway', empty, 'eager', 'off', env, repo);
            stops.push(server.stop);
            const url = new URL(`${server.url}/mcp`);
            return {
              pid: server.pid,
              modern: await connect(new StreamableHTTPClientTransport(url), true),
              legacy: await connect(new StreamableHTTPClientTransport(url), false),
            };
          })(options.before);
    const pids: Record<string, number> =
      older === undefined ? {} : { beforeGateway: older.pid, beforeGatewayLegacy: older.pid };
    // The proxy's CPU is its own process's.
    pids.rawProxy = proxy.pid;
    const settings = { ...options, concurrency, gatewayPid: gateway.pid, pids };
    const http = await compare(
      {
        direct: callTool(direct, 'echo'),
        gateway: callThroughCatalog(viaModern, 'remote'),
        gatewayLegacy: callTool(viaLegacy, 'skill_remote_call_echo'),
        rawProxy: callTool(viaProxy, 'echo'),
        ...(older === undefined
          ? {}
          : {
              beforeGateway: callThroughCatalog(older.modern, 'remote'),
              beforeGatewayLegacy: callTool(older.legacy, 'skill_remote_call_echo'),
            }),
      },
      settings,
    );
    const stdio = await compare(
      {
        direct: callTool(directStdio, 'echo'),
        gateway: callTool(viaLegacy, 'skill_local_call_echo'),
        ...(older === undefined ? {} : { beforeGateway: callTool(older.legacy, 'skill_local_call_echo') }),
      },
      settings,
    );
    return {
      ...(older === undefined
        ? {}
        : {
            before: {
              http: {
                gateway: figuresOf(http, 'beforeGateway'),
                gatewayLegacy: figuresOf(http, 'beforeGatewayLegacy'),
              },
              stdio: { gateway: figuresOf(stdio, 'beforeGateway') },
            },
          }),
      http: {
        direct: figuresOf(http, 'direct'),
        gateway: figuresOf(http, 'gateway'),
        gatewayLegacy: figuresOf(http, 'gatewayLegacy'),
        rawProxy: figuresOf(http, 'rawProxy'),
      },
      stdio: { direct: figuresOf(stdio, 'direct'), gateway: figuresOf(stdio, 'gateway') },
      concurrency,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const stop of stops) await stop();
    await rm(empty, { recursive: true, force: true });
  }
}
