import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redisServer.js';
import { waitFor } from './waitFor.js';

/** A real HAProxy (the Debian package) on a free loopback port, round-robin in front of N backends. */
export interface Haproxy {
  /** Base URL of the balancer (no path). */
  readonly base: string;
  readonly port: number;
  /** Backend names in config order: `r0`, `r1`, ...; each answer carries its backend in X-Skillgate-Backend. */
  readonly backends: readonly string[];
  close(): Promise<void>;
}

/** Options of startHaproxy. */
export interface HaproxyOptions {
  /** Backend ports on 127.0.0.1, served in this order. */
  readonly ports: readonly number[];
  /** The balancer's own port (a public URL configured before the start names it); default a free one. */
  readonly port?: number;
  /** Health check path (default /healthz). */
  readonly healthPath?: string;
  /** Health check interval in ms (default 500; a backend is out after 2 failures, back after 1 success). */
  readonly checkIntervalMs?: number;
}

/** The header HAProxy adds to each answer, naming the backend (r0, r1, ...) that served it. */
export const BACKEND_HEADER = 'x-skillgate-backend';

/**
 * The test twin of configs/haproxy.cfg: round-robin per request (no stickiness), health checks, and the long
 * client/server timeouts an SSE stream needs.
 */
function haproxyConfig(port: number, options: HaproxyOptions): string {
  const inter = options.checkIntervalMs ?? 500;
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout tunnel 1h',
    '  timeout http-request 20s',
    '  timeout http-keep-alive 10s',
    'frontend mcp',
    `  bind 127.0.0.1:${port}`,
    '  option forwardfor',
    '  default_backend gateways',
    'backend gateways',
    '  balance roundrobin',
    `  option httpchk GET ${options.healthPath ?? '/healthz'}`,
    '  http-check expect status 200',
    '  retries 2',
    '  option redispatch 1',
    '  retry-on conn-failure',
    `  http-response set-header X-Skillgate-Backend %s`,
    ...options.ports.map((p, i) => `  server r${i} 127.0.0.1:${p} check inter ${inter} fall 2 rise 1`),
    '',
  ].join('\n');
}

/** Starts haproxy in the foreground and waits until a health check through it is answered 200. */
export async function startHaproxy(options: HaproxyOptions): Promise<Haproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'skillgate-haproxy-'));
  const port = options.port ?? (await freePort());
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, haproxyConfig(port, options));
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => {
    output = (output + c.toString()).slice(-4000);
  });
  child.stderr?.on('data', (c: Buffer) => {
    output = (output + c.toString()).slice(-4000);
  });
  const base = `http://127.0.0.1:${port}`;
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const healthy = () =>
    fetch(`${base}${options.healthPath ?? '/healthz'}`).then(
      (r) => r.status === 200,
      () => false,
    );
  // An exited haproxy answers nothing: stop waiting for it at once.
  const started = await waitFor(async () => child.exitCode !== null || (await healthy()), {
    timeoutMs: 10_000,
    intervalMs: 50,
  }).then(
    () => child.exitCode === null,
    () => false,
  );
  if (!started) {
    await close();
    throw new Error(`haproxy did not start on port ${port}: ${output}`);
  }
  return { base, port, backends: options.ports.map((_, i) => `r${i}`), close };
}
