// Where a proxied upstream call's CPU goes (`BENCH_PATHS=upstream pnpm bench:profile`): the gateway (the built
// packages) in front of the test upstream over HTTP and stdio, called with the v2 SDK client as the
// upstream-overhead rows call it (upstreamOverhead.ts), 8 calls in flight. For each way the gateway's CPU per
// call is measured in a window without the profiler, then a profile of another window splits it by area
// (BENCH_FUNCTIONS=1: by function of the gateway and its packages; =all: every area by function;
// BENCH_PROFILE_DIR keeps each profile as a .cpuprofile file; BENCH_BEFORE_REPO profiles that checkout's
// gateway instead).
// docs/benchmarks.md, "Upstream calls: where the CPU goes".
import { setMaxListeners } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startHttpUpstream, TEST_UPSTREAM } from '@skillgate/testkit';
import { type FunctionSplit, type Profile, printAreas } from './profileAreas.js';
import { startServer } from './support.js';
import { type Call, callThroughCatalog, callTool } from './upstreamOverhead.js';

const CONCURRENCY = 8;

/** Calls made in `seconds` with CONCURRENCY in flight. */
async function load(call: Call, seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await call();
        calls += 1;
      }
    }),
  );
  return calls;
}

/** Profiles the gateway's upstream calls whose label contains `only` ('upstream' selects all). */
export async function profileUpstreams(options: {
  readonly seconds: number;
  readonly only: string;
  readonly split: FunctionSplit;
  /** Another checkout whose gateway is profiled instead (a build of older code, to compare). */
  readonly repo?: string;
}): Promise<void> {
  // The v2 client's transport adds an abort listener per request to one long-lived signal (the load
  // generator's, not the gateway's): no warnings past 1,500.
  setMaxListeners(0);
  const empty = await mkdtemp(join(tmpdir(), 'skillgate-profile-upstreams-'));
  const upstream = await startHttpUpstream();
  const clients: Client[] = [];
  const gateway = await startServer(
    'gateway',
    empty,
    'eager',
    'off',
    {
      BENCH_PROFILE: '1',
      BENCH_UPSTREAMS: JSON.stringify([
        { id: 'remote', url: upstream.url, tools: ['echo'], max_concurrent: 64 },
        { id: 'local', command: [process.execPath, TEST_UPSTREAM], tools: ['echo'], max_concurrent: 64 },
      ]),
    },
    ...(options.repo === undefined ? [] : [options.repo]),
  );
  const cpuMicros = async (): Promise<number> =>
    ((await (await fetch(`${gateway.url}/__bench/cpu`)).json()) as { micros: number }).micros;
  try {
    const connect = async (modern: boolean): Promise<Client> => {
      const client = new Client(
        { name: 'skillgate-bench', version: '1.0.0' },
        modern ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)));
      clients.push(client);
      return client;
    };
    const modern = await connect(true);
    const legacy = await connect(false);
    const ways: ReadonlyArray<readonly [string, Call]> = [
      ['upstream HTTP, 2026-07-28 (call_skill_tool)', callThroughCatalog(modern, 'remote')],
      ['upstream HTTP, 2025 session (skill_remote_call_echo)', callTool(legacy, 'skill_remote_call_echo')],
      ['upstream stdio, 2025 session (skill_local_call_echo)', callTool(legacy, 'skill_local_call_echo')],
    ];
    for (const [label, call] of ways.filter(([label]) => label.includes(options.only))) {
      await load(call, 1);
      const before = await cpuMicros();
      const calls = await load(call, options.seconds);
      const perCall = ((await cpuMicros()) - before) / calls;
      await fetch(`${gateway.url}/__bench/profile/start`, { method: 'POST' });
      await load(call, options.seconds);
      const profile = (await (
        await fetch(`${gateway.url}/__bench/profile/stop`, { method: 'POST' })
      ).json()) as Profile;
      // BENCH_PROFILE_DIR: each profile is kept as a .cpuprofile too (Chrome DevTools, speedscope).
      const dir = process.env.BENCH_PROFILE_DIR;
      if (dir !== undefined)
        await writeFile(join(dir, `${label.replace(/\W+/g, '-')}.cpuprofile`), JSON.stringify(profile));
      printAreas(
        `${label}: ${perCall.toFixed(0)} µs gateway CPU per call (${(calls / options.seconds).toFixed(0)} calls/s, ${CONCURRENCY} in flight)`,
        profile,
        perCall,
        options.split,
      );
    }
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await gateway.stop();
    await upstream.stop();
    await rm(empty, { recursive: true, force: true });
  }
}
