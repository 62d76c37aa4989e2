import { type ChildProcess, spawn } from 'node:child_process';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { serializeMessage } from '@modelcontextprotocol/client';
import { findExecutable, launchCommand, type ProcessGuard, type RunCgroup } from '@skillgate/runner';
import { createLineReader } from '../wire/lineReader.js';

/** Options of createStdioServerTransport. */
export interface StdioServerTransportOptions {
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly guard: ProcessGuard;
  /** Largest single message (one line) read from the server; a longer one closes the connection. */
  readonly maxMessageBytes: number;
  /** Each chunk of the server's stderr. */
  readonly onStderr: (chunk: Buffer) => void;
  /** bwrap and its options (ending in `--`) when the server runs sandboxed (stdioSandbox.ts). */
  readonly sandbox?: { readonly bwrap: string; readonly options: readonly string[] };
  /** Time between SIGTERM and SIGKILL of the server's process group on close. */
  readonly killGraceMs?: number;
}

/** The started process of a stdio transport, for logs and tests. */
export interface StdioServerProcess {
  /** Its pid, which is also its process group id. */
  readonly pid: number | undefined;
}

const NO_LIMITS = { memoryMb: 0, processes: 0, fileBytes: 0, cpuSeconds: 0 } as const;

/**
 * An MCP transport over a stdio server the pool spawns itself (the SDK's StdioClientTransport cannot): in its
 * own process group, in a cgroup when the guard has them, registered with the process guard's watchdog so
 * it is killed even when the gateway is SIGKILLed, in bubblewrap when `sandbox` is given; the environment is
 * exactly `env`.
 */
export function createStdioServerTransport(
  options: StdioServerTransportOptions,
): Transport & StdioServerProcess {
  let child: ChildProcess | undefined;
  let cgroup: RunCgroup | undefined;
  let closed = false;
  let exited: Promise<void> = Promise.resolve();
  const buffer = createLineReader({
    maxLineBytes: options.maxMessageBytes,
    onLine: (line) => {
      let message: unknown;
      try {
        message = JSON.parse(line.toString('utf8'));
      } catch {
        // Not JSON (a stray log line on stdout): skipped, as the SDK's reader does.
        return;
      }
      if (!isJsonRpc(message)) throw new Error('the server sent a message that is not JSON-RPC 2.0');
      transport.onmessage?.(message);
    },
  });

  const transport: Transport & StdioServerProcess = {
    get pid() {
      return child?.pid;
    },
    async start() {
      const shell = findExecutable('bash', '/usr/bin:/bin');
      const envPath = findExecutable('env', '/usr/bin:/bin');
      cgroup = await options.guard.openRun({ processes: 0, memoryBytes: 0 });
      const registration = options.guard.registration;
      const { file, args } = launchCommand({
        command: options.command,
        watchdog: registration !== undefined,
        procsFiles: cgroup?.procsFiles ?? [],
        prlimit: undefined,
        limits: NO_LIMITS,
        // bash where there is one, as for scripts: /bin/sh (dash) can only close inherited descriptors 3-9, so
        // one the gateway inherited numbered 10 or more stayed open in the server, sandboxed too.
        ...(shell === undefined ? {} : { shell }),
        // env takes back out the SHLVL bash exports (and PWD), so the server's environment stays exactly `env`.
        ...(envPath === undefined
          ? {}
          : { env: { path: envPath, keepShlvl: options.env.SHLVL !== undefined } }),
        ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
      });
      const spawned = spawn(file, args, {
        cwd: options.cwd,
        env: { ...options.env },
        // Its own process group: stopping it reaches every process it forked.
        detached: true,
        stdio: [
          'pipe',
          'pipe',
          'pipe',
          'ignore',
          'ignore',
          ...(registration === undefined ? [] : [registration]),
        ],
      });
      child = spawned;
      exited = new Promise((resolve) => spawned.once('close', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        spawned.once('spawn', () => resolve());
        spawned.once('error', reject);
      });
      spawned.on('error', (error) => transport.onerror?.(error));
      spawned.stdin?.on('error', (error) => transport.onerror?.(error));
      spawned.stderr?.on('data', (chunk: Buffer) => options.onStderr(chunk));
      spawned.stdout?.on('data', (chunk: Buffer) => {
        try {
          buffer.push(chunk);
        } catch (error) {
          // A line past the cap or not JSON-RPC: the server is broken, so is this connection.
          transport.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void transport.close();
        }
      });
      spawned.once('close', () => {
        const pid = spawned.pid;
        if (pid !== undefined) options.guard.untrack(pid);
        void cgroup?.remove();
        buffer.clear();
        if (!closed) {
          closed = true;
          transport.onclose?.();
        }
      });
    },
    async send(message: JSONRPCMessage) {
      const stdin = child?.stdin;
      if (stdin === undefined || stdin === null || !stdin.writable)
        throw new Error('the server is not running');
      const line = serializeMessage(message);
      await new Promise<void>((resolve, reject) => {
        if (stdin.write(line, (error) => (error ? reject(error) : undefined))) resolve();
        else stdin.once('drain', () => resolve());
      });
    },
    async close() {
      const spawned = child;
      if (spawned === undefined || spawned.exitCode !== null || spawned.signalCode !== null) {
        if (!closed) {
          closed = true;
          transport.onclose?.();
        }
        return;
      }
      // Closing stdin is how a stdio server is asked to stop; then SIGTERM, then SIGKILL, to the whole group.
      spawned.stdin?.end();
      const grace = options.killGraceMs ?? 2000;
      const pid = spawned.pid;
      const timers = [
        setTimeout(() => signalGroup(pid, 'SIGTERM'), Math.min(grace, 500)),
        setTimeout(() => signalGroup(pid, 'SIGKILL'), grace),
      ];
      await exited;
      for (const timer of timers) clearTimeout(timer);
      // Whatever it left in its group (or cgroup) goes too.
      signalGroup(pid, 'SIGKILL');
    },
  };
  return transport;
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

// The shape of a JSON-RPC 2.0 message, checked once here; what each message carries is checked by whoever
// reads it (the client's schemas for its requests, the direct call path for its answers).
function isJsonRpc(message: unknown): message is JSONRPCMessage {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const m = message as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  if (m.jsonrpc !== '2.0') return false;
  if (typeof m.method === 'string') return true;
  if ('error' in m) return typeof m.id === 'string' || typeof m.id === 'number' || m.id === null;
  return (typeof m.id === 'string' || typeof m.id === 'number') && 'result' in m;
}
