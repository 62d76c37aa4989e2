import { type ChildProcess, spawn } from 'node:child_process';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { OutputTail } from './outputTail.js';
import { RunnerError } from './runnerError.js';
import type { RunningScript, RunProgress, RunResult, ScriptOutput } from './types.js';

/** Where the runner plugs the sandbox and the process guard into one run. */
export interface SpawnHooks {
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
  /** A pipe of this process whose descriptor the child gets as fd 5 (the watchdog's). */
  readonly watchdogPipe?: Writable;
  readonly onProgress?: (progress: RunProgress) => void;
  /** How often onProgress fires; default one second. */
  readonly progressIntervalMs?: number;
  /**
   * A warm spare (spareRuns.ts) to run in, instead of spawning `file`: its wrapper is told `spareCommand`
   * (the working directory, then the argv), and the run's clock starts then.
   */
  readonly spare?: { readonly child: ChildProcess; readonly command: Buffer };
}

const PROGRESS_INTERVAL_MS = 1000;
// fds 3 and 4 of the child: nothing, so the watchdog's pipe is fd 5.
const NO_PIPES = ['ignore', 'ignore'] as const;
/** The descriptor a warm spare waits on for its command (after the watchdog's fd 5). */
export const SPARE_FD = 6;

/** Spawns a script in its own process group and resolves once it runs; RUNNER_SPAWN_FAILED if it cannot start. */
export async function spawnScript(spec: SpawnSpec): Promise<RunningScript> {
  // node:child_process rather than execa: a run needs none of execa's extras, and its per-spawn set-up cost
  // about 1.5 ms of the event loop's time per run (docs/sandbox.md, "Cost").
  const subprocess =
    spec.spare?.child ??
    spawn(spec.file, spec.args, {
      cwd: spec.cwd,
      env: spec.env,
      shell: false,
      // Its own process group, so a timeout or cancel reaches every process the script forked.
      detached: true,
      // Without input the script reads /dev/null: immediate EOF, never a hang.
      stdio: [
        spec.stdin === undefined ? 'ignore' : 'pipe',
        'pipe',
        'pipe',
        ...NO_PIPES,
        ...(spec.watchdogPipe === undefined ? [] : [spec.watchdogPipe]),
      ],
    });
  if (spec.spare !== undefined) {
    const wait = subprocess.stdio.at(SPARE_FD);
    // The spare reads it whole before it runs anything; a spare that died takes the run down with it (exit).
    wait?.on('error', () => {});
    if (wait !== null && wait !== undefined && 'end' in wait) wait.end(spec.spare.command);
  }
  const { pid } = subprocess;
  if (pid === undefined) {
    const failure = await new Promise<NodeJS.ErrnoException>((resolve) => subprocess.once('error', resolve));
    // Name the program, not its absolute path: the message reaches the client.
    throw new RunnerError(
      'RUNNER_SPAWN_FAILED',
      `could not start "${basename(spec.file)}" (${failure.code ?? 'error'})`,
      { cause: failure },
    );
  }
  const { stdout: out, stderr: err } = subprocess;
  if (out === null || err === null) {
    // Cannot happen with the stdio above; narrows the types without a non-null assertion.
    process.kill(-pid, 'SIGKILL');
    throw new RunnerError(
      'RUNNER_SPAWN_FAILED',
      `could not start "${basename(spec.file)}" (no output pipes)`,
    );
  }
  // Later failures (a signal that cannot be sent) change nothing: the exit status still decides.
  subprocess.on('error', () => {});
  // A script that exits without reading its input closes the pipe under the write: EPIPE, not a failure.
  subprocess.stdin?.on('error', () => {});
  subprocess.stdin?.end(spec.stdin);
  // What decides the result: the exit status, and both output pipes closed (or given up on, drainTimer).
  const exitStatus = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    subprocess.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const closed = (stream: Readable): Promise<void> =>
    new Promise((resolve) => {
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
  const outputClosed = Promise.all([closed(out), closed(err)]);

  const startedAt = Date.now();
  const startedTick = performance.now();
  const stdout = new OutputTail(spec.maxOutputBytes);
  const stderr = new OutputTail(spec.maxOutputBytes);
  // The stream written last holds the line progress reports show.
  let latest = stdout;
  out.on('data', (chunk: Buffer | string) => {
    stdout.push(toBuffer(chunk));
    latest = stdout;
  });
  err.on('data', (chunk: Buffer | string) => {
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
      out.destroy();
      err.destroy();
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
      const [finished] = await Promise.all([exitStatus, outputClosed]);
      const result: RunResult = {
        exit_code: finished.code,
        signal: finished.signal,
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

function toBuffer(chunk: Buffer | string): Buffer {
  return typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
}
