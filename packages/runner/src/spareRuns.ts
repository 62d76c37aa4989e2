import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import type { ProcessGuard } from './guard/processGuard.js';
import type { RunCgroup, RunCgroupLimits } from './guard/runCgroup.js';
import { launchCommand } from './launchCommand.js';
import { SPARE_FD } from './spawnScript.js';

/** A wrapper started ahead of its run, already registered with the watchdog and in its own fresh cgroups. */
export interface SpareRun {
  readonly child: ChildProcess;
  readonly cgroup: RunCgroup;
}

/** What the spares of one runner are made with: the same for every run of that runner. */
export interface SpareRunsOptions {
  readonly guard: Promise<ProcessGuard>;
  readonly limits: RunCgroupLimits;
  /** bash: the spare reads its command with `read -d ''`, which a POSIX sh lacks. */
  readonly shell: string;
}

/** One warm spare at a time: `take` hands it to a run and starts the next; `close` ends the one left. */
export interface SpareRuns {
  /** The spare, if one is up (and then the next is started), else undefined: the run starts cold. */
  take(): SpareRun | undefined;
  /** Ends the idle spare and starts no more. */
  close(): Promise<void>;
}

// fds 3 and 4 unused, 5 the watchdog's pipe, 6 the wait pipe: the same numbers as a cold run's.
const UNUSED = ['ignore', 'ignore'] as const;

/**
 * Warm spares: a run's wrapper started before its run, so the cgroup join, which waits for an RCU grace period
 * in the kernel (about 10 ms when runs are spaced out), happens while no one waits for it (docs/sandbox.md,
 * "Cost"). Each spare has fresh cgroups of its own, used by exactly one run; the process guard knows it like a
 * run (watchdog registration, cgroup sweep), so it never outlives the gateway.
 */
export function createSpareRuns(options: SpareRunsOptions): SpareRuns {
  let spare: SpareRun | undefined;
  let making: Promise<void> | undefined;
  let closed = false;

  async function make(): Promise<void> {
    const guard = await options.guard;
    const cgroup = await guard.openRun(options.limits);
    if (cgroup === undefined) return;
    if (closed) {
      await cgroup.remove();
      return;
    }
    const registration = guard.registration;
    const { file, args } = launchCommand({
      command: [],
      watchdog: registration !== undefined,
      procsFiles: cgroup.procsFiles,
      prlimit: undefined,
      limits: { memoryMb: 0, processes: 0, fileBytes: 0, cpuSeconds: 0 },
      shell: options.shell,
      waitFd: SPARE_FD,
    });
    const child = spawn(file, args, {
      cwd: '/',
      // Nothing: the run's environment reaches its command through env -i.
      env: {},
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...UNUSED, registration ?? 'ignore', 'pipe'],
    });
    const { pid } = child;
    if (pid === undefined) {
      child.on('error', () => {});
      await cgroup.remove();
      return;
    }
    const ready: SpareRun = { child, cgroup };
    // An idle spare keeps nothing of the gateway alive.
    setRef(child, false);
    child.once('exit', () => {
      // Died idle (killed from outside): forget it, its group and its cgroups.
      if (spare !== ready) return;
      spare = undefined;
      void discard(ready);
    });
    spare = ready;
  }

  function refill(): void {
    if (closed || making !== undefined) return;
    making = make()
      .catch(() => {
        // No spare this time: runs start cold until the next refill.
      })
      .finally(() => {
        making = undefined;
      });
  }

  refill();
  return {
    take() {
      const taken = spare;
      spare = undefined;
      refill();
      if (taken === undefined) return undefined;
      if (!waiting(taken.child)) {
        void discard(taken);
        return undefined;
      }
      setRef(taken.child, true);
      return taken;
    },
    async close() {
      closed = true;
      await making;
      const idle = spare;
      spare = undefined;
      if (idle !== undefined) await discard(idle);
    },
  };

  // Kills a spare no run will use (it waits, or died), forgets its group and removes its cgroups.
  async function discard(unused: SpareRun): Promise<void> {
    const { pid } = unused.child;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      (await options.guard).untrack(pid);
    }
    await unused.cgroup.remove().catch(() => {});
  }
}

// Whether the spare still waits: node learns of a death only on its next turn, /proc at once (a zombie is dead).
function waiting(child: ChildProcess): boolean {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return false;
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    // No /proc: node's own view is all there is.
    return !existsSync('/proc/self');
  }
}

// ref/unref of the process and its pipes, so an idle spare does not keep the event loop alive.
function setRef(child: ChildProcess, on: boolean): void {
  if (on) child.ref();
  else child.unref();
  for (const stream of child.stdio) {
    if (!(stream instanceof Socket)) continue;
    if (on) stream.ref();
    else stream.unref();
  }
}
