import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '@skillgate/config';
import { BACKEND_HEADER, freePort, type Haproxy, startHaproxy, waitFor } from '@skillgate/testkit';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createGateway, type Gateway } from '../../src/index.js';
import { serveProcess } from './serveProcess.js';
import { EXAMPLES_ROOT, PROBE_ROOT, REPO_ROOT } from './testGateway.js';

/** One gateway replica of a cluster: in this process, or a real `skillgate serve` process. */
export interface Replica {
  readonly port: number;
  /** Base URL of the replica itself (no path), bypassing the balancer. */
  readonly base: string;
  /** The MCP endpoint of the replica itself. */
  readonly url: URL;
  /** The in-process gateway (undefined for a process replica). */
  gateway?: Gateway;
  /** The `skillgate serve` process (undefined for an in-process replica). */
  process?: ChildProcess;
}

/** N replicas on one Redis prefix behind a real HAProxy in round-robin. */
export interface ReplicaCluster {
  readonly replicas: readonly Replica[];
  readonly balancer: Haproxy;
  /** The MCP endpoint through the balancer. */
  readonly url: URL;
  readonly keyPrefix: string;
  /** Stops replica i (gracefully, or with SIGKILL for a process replica) and leaves it down. */
  stop(i: number, signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts replica i again on its port (after stop). */
  start(i: number): Promise<void>;
  close(): Promise<void>;
}

/** Options of startReplicaCluster. */
export interface ReplicaClusterOptions {
  readonly redisUrl: string;
  /** Gateway config as the YAML object would be; `state` and the listen address are set here. */
  readonly config?: Record<string, unknown>;
  readonly replicas?: number;
  /** Run each replica as a `skillgate serve` process (needed for kill -9); default in-process. */
  readonly processes?: boolean;
  /** Extra environment (token variables). */
  readonly env?: Record<string, string>;
  /** Directory for process replicas' config files. */
  readonly workDir?: string;
  /** 2025-era sessions on the SDK's transport instead of the native one (in-process replicas). */
  readonly sessionTransport?: 'native' | 'sdk';
  /** HAProxy's port (server.public_url names it before the start); default a free one. */
  readonly balancerPort?: number;
}

/** Starts replicas sharing one fresh Redis prefix, and HAProxy in front of them. */
export async function startReplicaCluster(options: ReplicaClusterOptions): Promise<ReplicaCluster> {
  const keyPrefix = `replicas-${randomBytes(4).toString('hex')}:`;
  const count = options.replicas ?? 2;
  const env = { ...process.env, ...options.env, SKILLGATE_REDIS_URL: options.redisUrl };
  const input = options.config ?? {};
  const fullConfig = {
    ...input,
    server: { host: '127.0.0.1', ...(input.server as object) },
    skills: { roots: [EXAMPLES_ROOT, PROBE_ROOT], ...(input.skills as object) },
    // As in startTestGateway: the test clients do not re-list, so holding get_info results only slows tests.
    sessions: { relist_wait_ms: 0, ...(input.sessions as object) },
    state: { backend: 'redis', key_prefix: keyPrefix },
  };
  const replicas: Replica[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    replicas.push({ port, base, url: new URL('/mcp', base) });
  }

  const startInProcess = async (replica: Replica): Promise<void> => {
    const config = parseConfig(
      { ...fullConfig, server: { ...fullConfig.server, port: replica.port } },
      { baseDir: REPO_ROOT },
    );
    const gateway = await createGateway(config, {
      env,
      ...(options.sessionTransport === undefined ? {} : { sessionTransport: options.sessionTransport }),
      logger: pino({ level: process.env.SKILLGATE_TEST_LOG ?? 'silent' }) as FastifyBaseLogger,
    });
    await gateway.app.listen({ host: '127.0.0.1', port: replica.port });
    await gateway.upstreamsSettled;
    replica.gateway = gateway;
  };

  const startProcess = async (replica: Replica): Promise<void> => {
    const dir = options.workDir ?? REPO_ROOT;
    const file = join(dir, `replica-${keyPrefix.slice(0, -1)}-${replica.port}.json`);
    // JSON is YAML: the config file is the same object the in-process replicas parse.
    await writeFile(
      file,
      JSON.stringify({ ...fullConfig, server: { ...fullConfig.server, port: replica.port } }),
    );
    await serveProcess(file, {
      env,
      spawned: (proc) => {
        replica.process = proc;
      },
    });
  };

  const start = (replica: Replica): Promise<void> =>
    options.processes === true ? startProcess(replica) : startInProcess(replica);

  const stop = async (replica: Replica, signal: 'SIGTERM' | 'SIGKILL'): Promise<void> => {
    const { gateway, process: proc } = replica;
    replica.gateway = undefined;
    replica.process = undefined;
    if (gateway !== undefined) await gateway.close();
    if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) {
      const gone = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill(signal);
      await gone;
    }
  };

  await Promise.all(replicas.map(start));
  const balancer = await startHaproxy({
    ports: replicas.map((r) => r.port),
    ...(options.balancerPort === undefined ? {} : { port: options.balancerPort }),
  });
  return {
    replicas,
    balancer,
    url: new URL('/mcp', balancer.base),
    keyPrefix,
    stop: (i, signal = 'SIGTERM') => stop(at(replicas, i), signal),
    start: (i) => start(at(replicas, i)),
    async close() {
      await balancer.close();
      await Promise.all(replicas.map((r) => stop(r, 'SIGKILL')));
    },
  };
}

const at = <T>(list: readonly T[], i: number): T => {
  const item = list[i];
  if (item === undefined) throw new Error(`no replica ${i}`);
  return item;
};

/** One HTTP exchange of a recorded client: which replica answered which request. */
export interface Exchange {
  readonly method: string;
  /** The JSON-RPC method of a POST (undefined for GET/DELETE and responses). */
  readonly rpc?: string;
  readonly status: number;
  /** The replica HAProxy sent it to (r0, r1, ...), or undefined when it did not go through HAProxy. */
  readonly backend?: string;
}

/** A v1 SDK client (2025 era) that records the replica behind every request. */
export interface RecordedClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  readonly exchanges: Exchange[];
  listChanged(): number;
  close(): Promise<void>;
}

/** Connects an SDK v1 client, recording X-Skillgate-Backend of every answer. */
export async function connectRecorded(
  url: URL,
  options: { token?: string; name?: string } = {},
): Promise<RecordedClient> {
  let changes = 0;
  const exchanges: Exchange[] = [];
  const client = new Client({ name: options.name ?? 'replica-test', version: '1.0.0' }, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1;
  });
  const headers: Record<string, string> =
    options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` };
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    let rpc: string | undefined;
    if (typeof init?.body === 'string') {
      const body = JSON.parse(init.body) as { method?: unknown };
      if (typeof body.method === 'string') rpc = body.method;
    }
    exchanges.push({
      method: init?.method ?? 'GET',
      rpc,
      status: response.status,
      backend: response.headers.get(BACKEND_HEADER) ?? undefined,
    });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch: recording });
  await client.connect(transport);
  return { client, transport, exchanges, listChanged: () => changes, close: () => client.close() };
}

/** The value of a counter (summed over its label sets) in a replica's /metrics. */
export async function counter(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

/** Waits until HAProxy sends nothing to the replica named `down` (its health checks failed). */
export async function waitUntilOut(balancer: Haproxy, down: string): Promise<void> {
  await waitFor(
    async () => {
      for (let i = 0; i < 4; i++) {
        const response = await fetch(`${balancer.base}/healthz`).catch(() => undefined);
        if (response?.status !== 200 || response.headers.get(BACKEND_HEADER) === down) return false;
      }
      return true;
    },
    { what: `HAProxy to take ${down} out`, timeoutMs: 15_000, intervalMs: 100 },
  );
}
