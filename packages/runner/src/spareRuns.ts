import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ProcessGuard } from './guard/processGuard.js';
import type { RunCgroup, RunCgroupLimits } from './guard/runCgroup.js';
import { launchCommand } from './launchCommand.js';
import { SPARE_FD } from './spawnScript.js';

/** A wrapper started ahead of its run, already registered with the watchdog and in its own fresh cgroups. */
export interface SpareRun {
  readonly child: ChildProcess;
  readonly cgroup: RunCgroup;
  /** What it was made for: '' = any run of the runner, else one key (a skill folder). */
  readonly key: string;
  /** Whether its sandbox and rlimits are in place: the run sends it only env and the script. */
  readonly prestarted: boolean;
}

/** How a spare of one key is started. */
export interface SpareChain {
  /** After the wrapper's own arguments: ulimit options for it to set (`receive`), or the chain it execs. */
  readonly argv: readonly string[];
  /** The wrapper reads the run's command itself; else it execs `argv`, whose last link (`spareWaiter`) reads it. */
  readonly receive: boolean;
  /** Whether the sandbox and rlimits are in place once the spare waits. */
  readonly prestarted: boolean;
}

/** What the spares of one runner are made with. */
export interface SpareRunsOptions {
  readonly guard: Promise<ProcessGuard>;
  readonly limits: RunCgroupLimits;
  /** bash: the spare reads its command with `read -d ''`, which a POSIX sh lacks. */
  readonly shell: string;
  /** The environment every run shares (not SKILL_NAME, SKILL_DIR): the spare's own, passed on to its run. */
  readonly env: Readonly<Record<string, string>>;
  /** Most spares at once, idle or being made, every key together; 0 = none. */
  readonly max: number;
  /** A spare unused this long is ended (and made again only when a run of its key asks). */
  readonly idleMs: number;
  /**
   * A spare unused this long may be ended to make room for one of another key; a younger one is kept, so runs
   * of more keys than `max` in turn do not end every spare before its run comes.
   */
  readonly evictAfterMs: number;
  /** How a spare of `key` is started; throws when none can be made for the key. */
  chain(key: string): SpareChain;
  /**
   * What the spare's sandbox depends on, read when it is made and again when it is taken; a spare whose
   * identity changed is not used (a skill folder swapped for another at the same path after its spare bound
   * it). undefined = cannot be told: no spare.
   */
  identity(key: string): string | undefined;
}

/** Warm spares by key: `take` hands one to a run and asks for another of that key; `close` ends the idle ones. */
export interface SpareRuns {
  /** The oldest idle spare of `key` (one more of that key is started), else undefined: the run starts cold. */
  take(key: string): SpareRun | undefined;
  /** Spares idle or being made now. */
  readonly size: number;
  /** Ends every idle spare and starts no more. */
  close(): Promise<void>;
}

interface Idle {
  readonly spare: SpareRun;
  readonly identity: string;
  readonly reap: NodeJS.Timeout;
  /** When it was ready (performance.now()). */
  readonly since: number;
}

// fds 3 and 4 unused, 5 the watchdog's pipe, 6 the wait pipe: the same numbers as a cold run's.
const UNUSED = ['ignore', 'ignore'] as const;

/**
 * Warm spares: a run's wrapper started before its run, so the cgroup join, which waits for an RCU grace period
 * in the kernel (about 10 ms when runs are spaced out), happens while no one waits for it; for a key other than
 * '' also the sandbox (bwrap's namespaces and mounts for one skill folder) and the rlimits (docs/sandbox.md,
 * "Cost"). Each spare has fresh cgroups and namespaces of its own, used by exactly one run; the process guard
 * knows it like a run (watchdog registration, cgroup sweep), so it never outlives the gateway. Each run of a key
 * asks for one more spare of it (up to `max` in all, the oldest idle spare of another key making room once it
 * waited `evictAfterMs`), so runs
 * `n` at a time find `n` spares; one unused for `idleMs` is ended.
 */
export function createSpareRuns(options: SpareRunsOptions): SpareRuns {
  const idle = new Map<string, Idle[]>();
  const pending = new Set<Promise<void>>();
  let size = 0;
  let closed = false;

  async function make(key: string): Promise<void> {
    const guard = await options.guard;
    const identity = options.identity(key);
    if (identity === undefined || closed) return;
    const chain = options.chain(key);
    const cgroup = await guard.openRun(options.limits);
    if (cgroup === undefined) return;
    if (closed) {
      await cgroup.remove();
      return;
    }
    const registration = guard.registration;
    const { file, args } = launchCommand({
      command: chain.receive ? [] : chain.argv,
      watchdog: registration !== undefined,
      procsFiles: cgroup.procsFiles,
      prlimit: undefined,
      limits: { memoryMb: 0, processes: 0, fileBytes: 0, cpuSeconds: 0 },
      shell: options.shell,
      waitFd: SPARE_FD,
      passWaitFd: !chain.receive,
      prestarted: true,
    });
    // The ulimit options of a wrapper that receives its command follow its own arguments, as they are.
    const child = spawn(file, chain.receive ? [...args, ...chain.argv] : args, {
      cwd: '/',
      // What every run's environment holds; a run adds its own variables through env.
      env: options.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...UNUSED, registration ?? 'ignore', 'pipe'],
    });
    if (child.pid === undefined) {
      child.on('error', () => {});
      await cgroup.remove();
      return;
    }
    const spare: SpareRun = { child, cgroup, key, prestarted: chain.prestarted };
    // An idle spare keeps nothing of the gateway alive.
    setRef(child, false);
    const entry: Idle = {
      spare,
      identity,
      reap: setTimeout(() => {
        if (forget(entry)) void discard(spare);
      }, options.idleMs),
      since: performance.now(),
    };
    entry.reap.unref();
    // Died idle (killed from outside, or its sandbox failed): forget it, its group and its cgroups.
    child.once('exit', () => {
      if (forget(entry)) void discard(spare);
    });
    const list = idle.get(key) ?? [];
    list.push(entry);
    idle.set(key, list);
    size++;
  }

  // Takes an idle spare out of the lists; false if a run or the reaper took it already.
  function forget(entry: Idle): boolean {
    const list = idle.get(entry.spare.key);
    const at = list?.indexOf(entry) ?? -1;
    if (list === undefined || at < 0) return false;
    list.splice(at, 1);
    if (list.length === 0) idle.delete(entry.spare.key);
    clearTimeout(entry.reap);
    size--;
    return true;
  }

  // Makes room for one more by ending the oldest idle spare of another key, if it has waited long enough.
  function evictOther(key: string): boolean {
    let oldest: Idle | undefined;
    for (const [other, list] of idle) {
      const first = list[0];
      if (other !== key && first !== undefined && (oldest === undefined || first.since < oldest.since))
        oldest = first;
    }
    if (oldest === undefined || performance.now() - oldest.since < options.evictAfterMs) return false;
    if (!forget(oldest)) return false;
    void discard(oldest.spare);
    return true;
  }

  function want(key: string): void {
    if (closed) return;
    if (size >= options.max && !evictOther(key)) return;
    // Counted while it is made, so a burst of runs does not start more than `max`.
    size++;
    const made: Promise<void> = make(key)
      .catch(() => {
        // No spare this time: runs start cold until the next one asks.
      })
      .finally(() => {
        size--;
        pending.delete(made);
      });
    pending.add(made);
  }

  if (options.max > 0) want('');
  return {
    take(key) {
      const entry = idle.get(key)?.[0];
      if (entry !== undefined) forget(entry);
      want(key);
      if (entry === undefined) return undefined;
      if (!waiting(entry.spare.child) || options.identity(key) !== entry.identity) {
        void discard(entry.spare);
        return undefined;
      }
      setRef(entry.spare.child, true);
      return entry.spare;
    },
    get size() {
      return size;
    },
    async close() {
      closed = true;
      await Promise.allSettled([...pending]);
      const left = [...idle.values()].flat();
      for (const entry of left) forget(entry);
      await Promise.allSettled(left.map((entry) => discard(entry.spare)));
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
