import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Duplex, type Readable, type Writable } from 'node:stream';
import { execa } from 'execa';
import { OutputTail } from './outputTail.js';
import { RunnerError } from './runnerError.js';
import type { RunningScript, RunProgress, RunResult, ScriptOutput } from './types.js';

/** The extra pipes of a run started with `syncPipes` (fds 3 and 4 of the child). */
export interface SyncPipes {
  /** The child writes to fd 3 (bwrap's --info-fd). */
  readonly info: Readable;
  /** The child reads fd 4 (bwrap's --block-fd). */
  readonly block: Writable;
}

/** Where the runner plugs the sandbox and the process guard into one run. */
export interface SpawnHooks {
  /** Called synchronously right after the spawn, with the pid of the run's first process. */
  spawned?(pid: number, pipes: SyncPipes | undefined): void;
  /** Sends a signal to the whole run; default: its process group. */
  kill?(pid: number, signal: NodeJS.Signals): void;
  /** Called once the first process exited and the run was SIGKILLed. */
  exited?(pid: number): void;
  /** Last say on the result before `done` resolves (cleanup, limits); must not reject. */
  settle?(result: RunResult): Promise<RunResult>;
}

/** Everything needed to spawn one script, already resolved and checked by the runner. */
export interface SpawnSpec {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string | undefined;
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  readonly maxOutputBytes: number;
  /** Lines of each stream in the result, and the default of live output. */
  readonly tailLines: number;
  readonly signal: AbortSignal | undefined;
  readonly hooks?: SpawnHooks;
  /** Give the child two more pipes, fds 3 and 4, handed to hooks.spawned. */
  readonly syncPipes?: boolean;
  /** A pipe of this process whose descriptor the child gets as fd 5 (the watchdog's). */
  readonly watchdogPipe?: Writable;
  readonly onProgress?: (progress: RunProgress) => void;
  /** How often onProgress fires; default one second. */
  readonly progressIntervalMs?: number;
}

const PROGRESS_INTERVAL_MS = 1000;
const PIPES = ['pipe', 'pipe'] as const;
const NO_PIPES = ['ignore', 'ignore'] as const;

/** Spawns a script in its own process group and resolves once it runs; RUNNER_SPAWN_FAILED if it cannot start. */
export async function spawnScript(spec: SpawnSpec): Promise<RunningScript> {
  const subprocess = execa(spec.file, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    extendEnv: false,
    shell: false,
    // Its own process group, so a timeout or cancel reaches every process the script forked.
    detached: true,
    buffer: false,
    reject: false,
    forceKillAfterDelay: false,
    // Without input the script reads /dev/null: immediate EOF, never a hang.
    ...(spec.stdin === undefined ? {} : { input: spec.stdin }),
    stdio: [
      spec.stdin === undefined ? 'ignore' : 'pipe',
      'pipe',
      'pipe',
      ...(spec.syncPipes ? PIPES : NO_PIPES),
      ...(spec.watchdogPipe === undefined ? [] : [spec.watchdogPipe]),
    ],
  });
  const { pid } = subprocess;
  if (pid !== undefined) spec.hooks?.spawned?.(pid, syncPipes(subprocess.stdio));
  if (pid === undefined) {
    const failure = await subprocess;
    // Name the program, not its absolute path: the message reaches the client.
    throw new RunnerError(
      'RUNNER_SPAWN_FAILED',
      `could not start "${basename(spec.file)}" (${failure.code ?? 'error'})`,
      {
        cause: failure.cause ?? failure,
      },
    );
  }

  const startedAt = Date.now();
  const startedTick = performance.now();
  const stdout = new OutputTail(spec.maxOutputBytes);
  const stderr = new OutputTail(spec.maxOutputBytes);
  // The stream written last holds the line progress reports show.
  let latest = stdout;
  subprocess.stdout.on('data', (chunk: Buffer | string) => {
    stdout.push(toBuffer(chunk));
    latest = stdout;
  });
  subprocess.stderr.on('data', (chunk: Buffer | string) => {
    stderr.push(toBuffer(chunk));
    latest = stderr;
  });

  let exited = false;
  let timedOut = false;
  let cancelled = false;
  let killTimer: NodeJS.Timeout | undefined;
  let drainTimer: NodeJS.Timeout | undefined;

  const killGroup = (signal: NodeJS.Signals): void => {
    if (spec.hooks?.kill !== undefined) {
      spec.hooks.kill(pid, signal);
      return;
    }
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the whole group is already gone, which is the goal.
    }
  };
  const terminate = (): void => {
    if (exited || killTimer !== undefined) return;
    killGroup('SIGTERM');
    killTimer = setTimeout(() => killGroup('SIGKILL'), spec.killGraceMs);
  };
  const timeoutTimer = setTimeout(() => {
    if (exited || killTimer !== undefined) return;
    timedOut = true;
    terminate();
  }, spec.timeoutMs);
  const cancel = (): void => {
    if (exited || killTimer !== undefined) return;
    cancelled = true;
    terminate();
  };

  const { onProgress } = spec;
  const progressTimer =
    onProgress === undefined
      ? undefined
      : setInterval(() => {
          if (exited) return;
          try {
            onProgress({
              elapsedMs: Math.round(performance.now() - startedTick),
              lastLine: latest.lastLine(),
            });
          } catch {
            // A failing observer must not take the run down.
          }
        }, spec.progressIntervalMs ?? PROGRESS_INTERVAL_MS);
  progressTimer?.unref();

  subprocess.once('exit', () => {
    exited = true;
    clearTimeout(timeoutTimer);
    clearTimeout(killTimer);
    clearInterval(progressTimer);
    // Leftover background children would hold stdout open and keep the run alive: they go with the script.
    killGroup('SIGKILL');
    spec.hooks?.exited?.(pid);
    // A child that left the group (setsid) may still hold the pipes: stop waiting for them after the grace.
    drainTimer = setTimeout(() => {
      subprocess.stdout.destroy();
      subprocess.stderr.destroy();
    }, spec.killGraceMs);
  });
  spec.signal?.addEventListener('abort', cancel, { once: true });
  // A cancellation that came while the run was being set up (slot, cgroup, spawn) found no listener yet.
  if (spec.signal?.aborted) cancel();

  const output = (tailLines = spec.tailLines): ScriptOutput => {
    const out = stdout.snapshot(tailLines);
    const err = stderr.snapshot(tailLines);
    return {
      stdout: out.text,
      stderr: err.text,
      stdout_truncated: out.truncated,
      stderr_truncated: err.truncated,
      stdout_bytes: out.bytes,
      stderr_bytes: err.bytes,
    };
  };

  const done = (async (): Promise<RunResult> => {
    try {
      const finished = await subprocess;
      const result: RunResult = {
        exit_code: finished.exitCode ?? null,
        signal: finished.signal ?? null,
        timed_out: timedOut,
        duration_ms: Math.round(performance.now() - startedTick),
        ...output(),
      };
      return spec.hooks?.settle === undefined ? result : await spec.hooks.settle(result);
    } finally {
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      clearInterval(progressTimer);
      spec.signal?.removeEventListener('abort', cancel);
    }
  })();

  return {
    done,
    output,
    cancel,
    startedAt,
    get cancelled() {
      return cancelled;
    },
  };
}

function syncPipes(stdio: readonly unknown[]): SyncPipes | undefined {
  const [, , , info, block] = stdio;
  // Node makes every extra 'pipe' fd a duplex socket.
  return info instanceof Duplex && block instanceof Duplex ? { info, block } : undefined;
}

function toBuffer(chunk: Buffer | string): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}
