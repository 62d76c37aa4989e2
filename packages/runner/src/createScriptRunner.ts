import { createProcessGuard, type ProcessGuard } from './guard/processGuard.js';
import type { RunCgroup } from './guard/runCgroup.js';
import { type LaunchSetup, launchSetup } from './launchSetup.js';
import { RunnerError } from './runnerError.js';
import { runnerSpares } from './runnerSpares.js';
import { createSlotPool } from './slotPool.js';
import type { SpareRun, SpareRuns } from './spareRuns.js';
import { spawnRun } from './spawnRun.js';
import type {
  IsolationReport,
  RunnerOptions,
  RunningScript,
  RunRequest,
  RunResult,
  ScriptRunner,
} from './types.js';

/** A guard that does nothing, for hosts where even the watchdog cannot start. */
const NO_GUARD: ProcessGuard = {
  cgroup: false,
  memoryCgroup: false,
  watchdog: false,
  sweptProcesses: 0,
  registration: undefined,
  openRun: async () => undefined,
  untrack: () => {},
  close: async () => {},
};

/**
 * Creates the script runner: no shell, scrubbed environment, bounded output and concurrency, per-run limits,
 * bubblewrap when options.sandbox says so, and a process guard so no script outlives its run or the gateway.
 * A run takes a slot (slotPool), a cgroup or a warm spare (runnerSpares), and is launched by spawnRun.
 */
export function createScriptRunner(options: RunnerOptions): ScriptRunner {
  const setup = launchSetup(options);
  const pool = createSlotPool(options);
  const running = new Set<RunningScript>();
  const guarded = createProcessGuard().catch(() => NO_GUARD);
  const spares = runnerSpares(setup, guarded, options);
  let isolation: IsolationReport | undefined;
  const ready = guarded.then((guard) => {
    isolation = isolationReport(options, setup, guard);
    return isolation;
  });
  let closed = false;

  async function start(req: RunRequest): Promise<RunningScript> {
    if (closed) throw new RunnerError('RUNNER_CLOSED', 'the script runner is shutting down');
    if (req.stdin !== undefined && Buffer.byteLength(req.stdin) > options.maxStdinBytes) {
      throw new RunnerError(
        'RUNNER_INPUT_TOO_LARGE',
        `stdin is over the limit of ${options.maxStdinBytes} bytes`,
      );
    }
    const env: Record<string, string> = {
      ...setup.shared,
      // The caller's own credentials (scripts.credentials): in the environment, never in an argv.
      ...req.credentials,
      SKILL_NAME: req.skillName,
      SKILL_DIR: req.skillDir,
    };
    const command = await setup.resolver.command(req, env.PATH);
    const release = await pool.acquire(req.principal, req.signal);
    let script: RunningScript;
    let cgroup: RunCgroup | undefined;
    try {
      if (closed) throw new RunnerError('RUNNER_CLOSED', 'the script runner is shutting down');
      if (req.signal?.aborted)
        throw new RunnerError('RUNNER_ABORTED', 'the run was cancelled before the script started');
      const guard = await guarded;
      const spare = takeSpare(spares, setup, req, command);
      cgroup = spare === undefined ? await guard.openRun(setup.cgroupLimits) : spare.cgroup;
      script = await spawnRun({ setup, options, req, env, command, guard, cgroup, spare });
    } catch (error) {
      await cgroup?.remove().catch(() => {});
      release();
      throw error;
    }
    running.add(script);
    // The slot is held until the run's process group is gone, whoever awaits the result. The cgroup is
    // removed after that, in the background: bwrap's last process may take a moment to leave it.
    const free = (): void => {
      running.delete(script);
      release();
    };
    void script.done.then(free, free);
    const runCgroup = cgroup;
    if (runCgroup !== undefined) {
      void script.done
        .then(
          () => runCgroup.remove(),
          () => runCgroup.remove(),
        )
        .catch(() => {
          // The watchdog and the next start-up sweep remove what is left.
        });
    }
    return script;
  }

  return {
    start,
    async run(req): Promise<RunResult> {
      const script = await start(req);
      return script.done;
    },
    ready: () => ready,
    get isolation() {
      return isolation;
    },
    get active() {
      return pool.active;
    },
    get queued() {
      return pool.queued;
    },
    async close() {
      closed = true;
      pool.close();
      const scripts = [...running];
      for (const script of scripts) script.cancel();
      await spares?.close();
      await Promise.allSettled(scripts.map((script) => script.done));
      await (await guarded).close();
    },
  };
}

/**
 * A spare for a run without input (its stdin is /dev/null, as a cold run's) whose argv can be sent: one with
 * this skill folder's sandbox made, else one that waits before its sandbox; undefined for a cold start.
 */
function takeSpare(
  spares: SpareRuns | undefined,
  setup: Pick<LaunchSetup, 'bwrap'>,
  req: RunRequest,
  command: readonly string[],
): SpareRun | undefined {
  // A spare is sent its run's variables in `env`'s argv: a run with the caller's credentials starts cold, so
  // they stay in its environment (readable by its own user only), never in a /proc/<pid>/cmdline.
  const sendable =
    req.stdin === undefined &&
    req.credentials === undefined &&
    !command.some((arg) => arg.includes('\0')) &&
    !req.skillDir.includes('\0');
  if (!sendable) return undefined;
  return setup.bwrap === undefined ? spares?.take('') : (spares?.take(req.skillDir) ?? spares?.take(''));
}

/** What the runner says of its isolation once its guard is up (the operator page, the start-up line). */
function isolationReport(
  options: Pick<RunnerOptions, 'sandbox'>,
  setup: Pick<LaunchSetup, 'bwrap' | 'network'>,
  guard: ProcessGuard,
): IsolationReport {
  return Object.freeze({
    sandbox: setup.bwrap === undefined ? 'off' : 'bwrap',
    requested: options.sandbox?.requested ?? 'off',
    ...(options.sandbox?.reason === undefined ? {} : { reason: options.sandbox.reason }),
    network: setup.bwrap === undefined ? true : setup.network,
    cgroup: guard.cgroup,
    memoryCgroup: guard.memoryCgroup,
    watchdog: guard.watchdog,
    sweptProcesses: guard.sweptProcesses,
  });
}
