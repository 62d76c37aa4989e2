import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './waitFor.js';

/** A real redis-server on a free loopback port, with its data in a temp dir. */
export interface RedisServer {
  readonly url: string;
  readonly port: number;
  /** Stops it (SIGTERM: Redis writes its append-only file and exits). */
  stop(): Promise<void>;
  /** Kills it at once (SIGKILL). */
  kill(): Promise<void>;
  /** Starts it again on the same port and data dir, and waits for PING. */
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  resume(): void;
  /** Stops it and removes its data. */
  close(): Promise<void>;
}

/** Options of startRedisServer. */
export interface RedisServerOptions {
  /** Keep data in an append-only file so a restart keeps it (default true). */
  readonly appendOnly?: boolean;
  /** Port to listen on (default: a free one). */
  readonly port?: number;
}

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let answer = '';
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}

const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));

/** Starts redis-server (the Debian package) on a free loopback port and waits until it answers PING. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'skillgate-redis-'));
  const port = options.port ?? (await freePort());
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    options.appendOnly === false ? 'no' : 'yes',
    '--dir',
    dir,
    '--protected-mode',
    'no',
    '--loglevel',
    'warning',
  ];
  let child: ChildProcess | undefined;
  let output = '';

  const start = async (): Promise<void> => {
    const proc = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout?.on('data', (c: Buffer) => {
      output = (output + c.toString()).slice(-4000);
    });
    proc.stderr?.on('data', (c: Buffer) => {
      output = (output + c.toString()).slice(-4000);
    });
    child = proc;
    try {
      // An exited process answers no PING: stop waiting for it at once.
      await waitFor(async () => proc.exitCode !== null || (await pings(port)), {
        timeoutMs: 10_000,
        what: `redis-server on port ${port}`,
      });
      if (proc.exitCode !== null) throw new Error('exited');
    } catch {
      proc.kill('SIGKILL');
      throw new Error(`redis-server did not start on port ${port}: ${output}`);
    }
  };

  const signal = async (name: NodeJS.Signals): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    proc.kill('SIGCONT');
    proc.kill(name);
    await exited(proc);
    child = undefined;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => signal('SIGTERM'),
    kill: () => signal('SIGKILL'),
    start,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async close() {
      await signal('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
