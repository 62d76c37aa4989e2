// Proxy overhead of upstream MCP servers behind skills (docs/upstreams.md): a trivial tool (echo of the
// test upstream) called directly and through skillgate with the same client library (the v2 SDK client),
// over streamable HTTP and over stdio; and the gateway's memory per upstream connection.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { percentile, serverMemory, startServer } from './support.js';

const FIXTURE = join(import.meta.dirname, '../../packages/upstreams/test/fixtures/testUpstream.mjs');

/** Latency and throughput of one way of calling the tool. */
export interface CallFigures {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly callsPerSecond: number;
}

/** What the rows print. */
export interface UpstreamOverheadResult {
  readonly http: { readonly direct: CallFigures; readonly gateway: CallFigures };
  readonly stdio: { readonly direct: CallFigures; readonly gateway: CallFigures };
  /** Heap (plus external) the gateway holds per connected HTTP upstream, in bytes. */
  readonly bytesPerUpstream: number;
  readonly upstreamsForMemory: number;
}

async function startHttpUpstream(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [FIXTURE, '--http'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening (\S+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`test upstream exited with ${code}`)));
  });
  return { url, stop: () => child.kill('SIGKILL') };
}

async function measure(
  call: () => Promise<unknown>,
  samples: number,
  seconds: number,
  concurrency: number,
): Promise<CallFigures> {
  for (let i = 0; i < 30; i++) await call();
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t);
  }
  let done = 0;
  const until = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await call();
        done += 1;
      }
    }),
  );
  return {
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    callsPerSecond: done / seconds,
  };
}

const echo = (client: Client, name: string) => () => client.callTool({ name, arguments: { text: 'x' } });

/** Runs the direct and proxied measurements. */
export async function upstreamOverhead(options: {
  readonly samples: number;
  readonly seconds: number;
}): Promise<UpstreamOverheadResult> {
  const empty = await mkdtemp(join(tmpdir(), 'skillgate-bench-upstreams-'));
  const upstream = await startHttpUpstream();
  const clients: Client[] = [];
  const stops: Array<() => Promise<void> | void> = [upstream.stop];
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
    const gateway = await startServer('gateway', empty, 'eager', 'off', {
      BENCH_UPSTREAMS: JSON.stringify([
        { id: 'remote', url: upstream.url, tools: ['echo'], max_concurrent: 64 },
        { id: 'local', command: [process.execPath, FIXTURE], tools: ['echo'], max_concurrent: 64 },
      ]),
    });
    stops.push(gateway.stop);
    const viaGateway = await connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`)), false);
    const direct = await connect(new StreamableHTTPClientTransport(new URL(upstream.url)), true);
    const directStdio = await connect(
      new StdioClientTransport({ command: process.execPath, args: [FIXTURE], stderr: 'ignore' }),
      false,
    );
    const run = (client: Client, name: string) =>
      measure(echo(client, name), options.samples, options.seconds, 8);
    const http = {
      direct: await run(direct, 'echo'),
      gateway: await run(viaGateway, 'skill_remote_call_echo'),
    };
    const stdio = {
      direct: await run(directStdio, 'echo'),
      gateway: await run(viaGateway, 'skill_local_call_echo'),
    };

    // Memory per connection: one gateway with no upstream, one with many (all to the same server).
    const count = 20;
    const none = await startServer('gateway', empty, 'eager', 'off', { BENCH_UPSTREAMS: '[]' });
    stops.push(none.stop);
    const many = await startServer('gateway', empty, 'eager', 'off', {
      BENCH_UPSTREAMS: JSON.stringify(
        Array.from({ length: count }, (_, i) => ({ id: `u${i}`, url: upstream.url, tools: ['echo'] })),
      ),
    });
    stops.push(many.stop);
    const bytesPerUpstream = ((await serverMemory(many.url)) - (await serverMemory(none.url))) / count;
    return { http, stdio, bytesPerUpstream, upstreamsForMemory: count };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const stop of stops) await stop();
    await rm(empty, { recursive: true, force: true });
  }
}
