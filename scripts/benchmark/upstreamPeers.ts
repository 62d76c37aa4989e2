// A stdio MCP server put on streamable HTTP by skillgate and by the two tools people use for that,
// supergateway and mcp-proxy (pinned dev dependencies), measured side by side in one run with the same
// client (the v2 SDK client) in both protocol eras: the same server (the test upstream), the same tool
// (echo), the ways in alternation, each proxy's own CPU per call beside its latency and throughput.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TEST_UPSTREAM } from '@skillgate/testkit';
import { startServer } from './support.js';
import { type Call, type CallFigures, compare } from './upstreamOverhead.js';

/** The peers, by the name their rows use. */
const PEERS = ['supergateway', 'mcp-proxy'] as const;
type Peer = (typeof PEERS)[number];
/** The 2025-era session (initialize) and the 2026-07-28 one (server/discover). */
const ERAS = ['2025-11-25', '2026-07-28'] as const;
type Era = (typeof ERAS)[number];

/** One proxy's figures in one era, or why it has none. */
export type PeerFigures = CallFigures | { readonly unsupported: string };

/** What the rows print: per era, skillgate and each peer. */
export interface UpstreamPeersResult {
  readonly versions: Readonly<Record<Peer, string>>;
  readonly eras: Readonly<Record<Era, Readonly<Record<'skillgate' | Peer, PeerFigures>>>>;
  readonly concurrency: number;
}

const require = createRequire(import.meta.url);
// Named one by one, so the dependency checker sees both packages used.
const MANIFESTS: Readonly<Record<Peer, string>> = {
  supergateway: require.resolve('supergateway/package.json'),
  'mcp-proxy': require.resolve('mcp-proxy/package.json'),
};

// A peer's entry point, run with this Node (no npx shim: the CPU measured is the proxy's own).
function binOf(peer: Peer): { path: string; version: string } {
  const manifest = MANIFESTS[peer];
  const { bin, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    bin: string | Record<string, string>;
    version: string;
  };
  const entry = typeof bin === 'string' ? bin : (bin[peer] ?? Object.values(bin)[0] ?? '');
  return { path: join(dirname(manifest), entry), version };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

// Each peer fronting the stdio test upstream, one server process per client session (both keep the stdio
// server for the session: supergateway with --stateful, mcp-proxy by default).
function peerArgs(peer: Peer, bin: string, port: number): string[] {
  const server = [process.execPath, TEST_UPSTREAM];
  if (peer === 'supergateway') {
    return [
      bin,
      '--stdio',
      server.map((part) => JSON.stringify(part)).join(' '),
      '--outputTransport',
      'streamableHttp',
      '--stateful',
      '--port',
      String(port),
      '--logLevel',
      'none',
    ];
  }
  return [bin, '--host', '127.0.0.1', '--port', String(port), '--server', 'stream', '--', ...server];
}

async function startPeer(peer: Peer): Promise<{ url: URL; child: ChildProcess; version: string }> {
  const { path, version } = binOf(peer);
  const port = await freePort();
  const child = spawn(process.execPath, peerArgs(peer, path, port), { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = `${stderr}${chunk.toString()}`.slice(-4000);
  });
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const until = Date.now() + 30_000;
  // Listening once a connection is accepted.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${peer} exited: ${stderr}`);
    const up = await fetch(url, { method: 'GET' }).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > until) throw new Error(`${peer} did not listen: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, version };
}

// A client of the era: 2025 opens with initialize, 2026-07-28 probes with server/discover and falls back;
// the version it got says whether the proxy serves the era.
async function connect(url: URL, era: Era): Promise<Client> {
  const client = new Client(
    { name: 'skillgate-bench', version: '1.0.0' },
    era === '2025-11-25' ? {} : { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

// The gateway listens before its upstreams are connected: their tools arrive with a catalog rebuild.
async function untilListed(client: Client, tool: string): Promise<void> {
  const until = Date.now() + 60_000;
  while (!(await client.listTools(undefined, { cacheMode: 'bypass' })).tools.some((t) => t.name === tool)) {
    if (Date.now() > until) throw new Error(`${tool} was never listed`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const echo =
  (client: Client, name: string): Call =>
  () =>
    client.callTool({ name, arguments: { text: 'x' } });

/** Runs skillgate, supergateway and mcp-proxy in front of the same stdio server, in both eras. */
export async function upstreamPeers(options: {
  readonly samples: number;
  readonly seconds: number;
  readonly rounds: number;
}): Promise<UpstreamPeersResult> {
  const empty = await mkdtemp(join(tmpdir(), 'skillgate-bench-peers-'));
  const clients: Client[] = [];
  const children: ChildProcess[] = [];
  const stops: Array<() => Promise<void> | void> = [];
  const concurrency = 8;
  try {
    const gateway = await startServer('gateway', empty, 'eager', 'off', {
      BENCH_UPSTREAMS: JSON.stringify([
        { id: 'local', command: [process.execPath, TEST_UPSTREAM], tools: ['echo'], max_concurrent: 64 },
      ]),
    });
    stops.push(gateway.stop);
    const peers = {} as Record<Peer, { url: URL; pid: number; version: string }>;
    for (const peer of PEERS) {
      const started = await startPeer(peer);
      children.push(started.child);
      peers[peer] = { url: started.url, pid: started.child.pid ?? 0, version: started.version };
    }
    const eras = {} as Record<Era, Record<'skillgate' | Peer, PeerFigures>>;
    for (const era of ERAS) {
      const ways: Record<string, Call> = {};
      const pids: Record<string, number> = { skillgate: gateway.pid };
      const unsupported: Record<string, string> = {};
      const viaGateway = await connect(new URL(`${gateway.url}/mcp`), era);
      clients.push(viaGateway);
      // 2025: the eager call tool; 2026-07-28: the catalog dispatcher, that era's default.
      if (era === '2025-11-25') {
        await untilListed(viaGateway, 'skill_local_call_echo');
        ways.skillgate = echo(viaGateway, 'skill_local_call_echo');
      } else {
        await untilListed(viaGateway, 'call_skill_tool');
        ways.skillgate = () =>
          viaGateway.callTool({
            name: 'call_skill_tool',
            arguments: { skill: 'local', tool: 'echo', arguments: { text: 'x' } },
          });
      }
      for (const peer of PEERS) {
        const client = await connect(peers[peer].url, era).catch((error: unknown) => error);
        if (!(client instanceof Client)) {
          unsupported[peer] = `connect failed: ${String(client)}`;
          continue;
        }
        clients.push(client);
        const got = client.getNegotiatedProtocolVersion();
        if (got !== era) {
          unsupported[peer] = `negotiates ${got ?? 'nothing'} when asked for ${era}`;
          continue;
        }
        ways[peer] = echo(client, 'echo');
        pids[peer] = peers[peer].pid;
      }
      // supergateway serves 2026-07-28 (no sessions) by starting the stdio server anew for every request:
      // measured after the others, alone, so its storm of process starts falls on no one else's window.
      const alone = era === '2026-07-28' ? ways.supergateway : undefined;
      if (alone !== undefined) delete ways.supergateway;
      const settings = { ...options, concurrency, gatewayPid: gateway.pid, pids };
      const figures = await compare(ways, settings);
      if (alone !== undefined) {
        Object.assign(
          figures,
          await compare(
            { supergateway: alone },
            { ...settings, samples: 30, seconds: options.seconds / 3, rounds: 1, warmup: 3 },
          ),
        );
      }
      eras[era] = Object.fromEntries(
        ['skillgate', ...PEERS].map((name) => [
          name,
          figures[name] ?? { unsupported: unsupported[name] ?? 'not measured' },
        ]),
      ) as Record<'skillgate' | Peer, PeerFigures>;
    }
    return {
      versions: { supergateway: peers.supergateway.version, 'mcp-proxy': peers['mcp-proxy'].version },
      eras,
      concurrency,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const child of children) child.kill('SIGKILL');
    for (const stop of stops) await stop();
    await rm(empty, { recursive: true, force: true });
  }
}
