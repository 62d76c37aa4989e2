import { statSync } from 'node:fs';
import { findExecutable } from './findExecutable.js';
import { createProcessGuard, type ProcessGuard } from './guard/processGuard.js';
import type { RunCgroup } from './guard/runCgroup.js';
import type { LaunchSpec } from './launchCommand.js';
import { confinement, launchCommand, spareWaiter, ulimitOptions } from './launchCommand.js';
import { limitExceeded } from './limitExceeded.js';
import { createCommandResolver } from './resolveCommand.js';
import { RunnerError } from './runnerError.js';
import { sandboxArguments } from './sandbox/sandboxArguments.js';
import { sandboxExitStatus } from './sandbox/sandboxExitStatus.js';
import { SANDBOX_PATH, systemLayout } from './sandbox/systemLayout.js';
import { signalProcessGroup } from './signalProcessGroup.js';
import { createSlotPool } from './slotPool.js';
import { createSpareRuns } from './spareRuns.js';
import { SPARE_FD, type SpawnHooks, spawnScript } from './spawnScript.js';
import type {
  IsolationReport,
  RunnerOptions,
  RunningScript,
  RunRequest,
  RunResult,
  ScriptLimits,
  ScriptRunner,
} from './types.js';

const MIB = 1024 * 1024;
// setTimeout fires at once for longer delays, which would kill every script on spawn.
const MAX_TIMER_MS = 2 ** 31 - 1;
const NO_LIMITS: ScriptLimits = { memoryMb: 0, processes: 0, fileBytes: 0, cpuSeconds: 0 };
// Processes of a sandboxed run that are not the script's: bwrap outside and bwrap as pid 1 inside.
const BWRAP_PROCESSES = 2;
// Warm spares: at most this many at once (and never more than runs may run at once), each ended after a minute
// unused. A sandboxed one holds bwrap's two processes and a bash, about 6 MB.
const MAX_SPARES = 8;
const SPARE_IDLE_MS = 60_000;
// A spare of one skill gives way to another skill's after a second unused, not sooner: with more skills in turn
// than spares, making each one only to end it before its run would double the sandbox work of every run.
const SPARE_EVICT_AFTER_MS = 1000;

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
 */
export function createScriptRunner(options: RunnerOptions): ScriptRunner {
  const bwrap = options.sandbox?.mode === 'bwrap' ? options.sandbox.bwrapPath : undefined;
  const network = options.network ?? false;
  const limits = options.limits ?? NO_LIMITS;
  const layout = bwrap === undefined ? undefined : systemLayout(network);
  const resolver = createCommandResolver({ interpreters: options.interpreters, sandbox: layout });
  // Inside the sandbox it must sit in the system directories, which /usr/bin and /bin are.
  const prlimit = findExecutable('prlimit', '/usr/bin:/bin');
  // The wrapper's shell: bash closes inherited descriptors of any number.
  const shell = findExecutable('bash', '/usr/bin:/bin');
  // Inside the sandbox too (it sits in /usr/bin): takes PWD and SHLVL out of the script's environment.
  const envPath = findExecutable('env', '/usr/bin:/bin');
  const pool = createSlotPool(options);
  const overhead = bwrap === undefined ? 0 : BWRAP_PROCESSES;
  const cgroupLimits = {
    processes: limits.processes > 0 ? limits.processes + overhead : 0,
    memoryBytes: limits.memoryMb * MIB,
  };
  const running = new Set<RunningScript>();
  const guarded = createProcessGuard().catch(() => NO_GUARD);
  // What every run's environment holds but SKILL_NAME and SKILL_DIR: read once, like every other option. A
  // warm spare is started with it (never in an argv, where any local user could read a secret passed on).
  const shared = sharedEnvironment(options, bwrap !== undefined);
  // Warm spares need bash (to read their command) and env (to add the run's own variables).
  const sandboxOptions = (skillDir: string): LaunchSpec['sandbox'] =>
    bwrap === undefined || layout === undefined
      ? undefined
      : {
          bwrap,
          options: sandboxArguments({
            layout,
            readOnly: [skillDir],
            cwd: skillDir,
            network,
            tmpBytes: limits.fileBytes,
          }),
        };
  const spares =
    shell === undefined || envPath === undefined
      ? undefined
      : createSpareRuns({
          guard: guarded,
          limits: cgroupLimits,
          shell,
          env: shared,
          max: Math.min(options.maxConcurrent, options.spares?.max ?? MAX_SPARES),
          idleMs: options.spares?.idleMs ?? SPARE_IDLE_MS,
          evictAfterMs: options.spares?.evictAfterMs ?? SPARE_EVICT_AFTER_MS,
          chain: (key) => {
            // The rlimits, set by the spare's waiting shell; prlimit stays in the run's chain when bash cannot
            // say them exactly, and both go without prlimit, as for a cold run.
            const ulimits = prlimit === undefined ? [] : ulimitOptions(limits, bwrap !== undefined);
            if (key === '')
              return bwrap === undefined && ulimits !== undefined
                ? { argv: ulimits, receive: true, prestarted: true }
                : { argv: [], receive: true, prestarted: false };
            // A skill folder's spare: its sandbox made, the waiting shell inside it.
            const confined = confinement({
              command: [],
              watchdog: false,
              procsFiles: [],
              prlimit: ulimits === undefined ? prlimit : undefined,
              limits,
              sandbox: sandboxOptions(key),
            });
            return {
              argv: [...confined, ...spareWaiter(shell, SPARE_FD, ulimits ?? [])],
              receive: false,
              prestarted: true,
            };
          },
          // The folder the spare's sandbox bound: a folder swapped in at the same path later is another one.
          identity: (key) => {
            if (key === '') return '';
            try {
              const stat = statSync(key, { bigint: true });
              return `${stat.dev}:${stat.ino}`;
            } catch {
              return undefined;
            }
          },
        });
  let isolation: IsolationReport | undefined;
  const ready = guarded.then((guard) => {
    isolation = Object.freeze({
      sandbox: bwrap === undefined ? 'off' : 'bwrap',
      requested: options.sandbox?.requested ?? 'off',
      ...(options.sandbox?.reason === undefined ? {} : { reason: options.sandbox.reason }),
      network: bwrap === undefined ? true : network,
      cgroup: guard.cgroup,
      memoryCgroup: guard.memoryCgroup,
      watchdog: guard.watchdog,
      sweptProcesses: guard.sweptProcesses,
    });
    return isolation;
  });
  let closed = false;

  function environment(req: RunRequest): Record<string, string> {
    return { ...shared, SKILL_NAME: req.skillName, SKILL_DIR: req.skillDir };
  }

  function hooks(guard: ProcessGuard, cgroup: RunCgroup | undefined): SpawnHooks {
    return {
      kill(pid, signal) {
        // bwrap dies of SIGTERM and takes the sandbox with it at once: spare it, so the script inside gets
        // the grace period; the SIGKILL after the grace goes to everything.
        const except = bwrap !== undefined && signal === 'SIGTERM' ? pid : undefined;
        if (cgroup === undefined) {
          signalProcessGroup(pid, signal, except);
        } else {
          // The cgroup holds what left the process group too (setsid, double fork).
          if (except === undefined) signalProcessGroup(pid, signal);
          cgroup.signal(signal, except);
        }
      },
      exited: (pid) => guard.untrack(pid),
      async settle(raw) {
        const result = bwrap === undefined ? raw : sandboxExitStatus(raw);
        const limit = limitExceeded(
          result,
          limits,
          cgroup?.hitPidsLimit() ?? false,
          cgroup?.hitMemoryLimit() ?? false,
        );
        return limit === undefined ? result : { ...result, limit_exceeded: limit };
      },
    };
  }

  async function start(req: RunRequest): Promise<RunningScript> {
    if (closed) throw new RunnerError('RUNNER_CLOSED', 'the script runner is shutting down');
    if (req.stdin !== undefined && Buffer.byteLength(req.stdin) > options.maxStdinBytes) {
      throw new RunnerError(
        'RUNNER_INPUT_TOO_LARGE',
        `stdin is over the limit of ${options.maxStdinBytes} bytes`,
      );
    }
    const env = environment(req);
    const command = await resolver.command(req, env.PATH);
    const release = await pool.acquire(req.principal, req.signal);
    let script: RunningScript;
    let cgroup: RunCgroup | undefined;
    try {
      if (closed) throw new RunnerError('RUNNER_CLOSED', 'the script runner is shutting down');
      if (req.signal?.aborted)
        throw new RunnerError('RUNNER_ABORTED', 'the run was cancelled before the script started');
      const guard = await guarded;
      // A spare for a run without input (its stdin is /dev/null, as a cold run's) whose argv can be sent: one
      // with this skill folder's sandbox made, else one that waits before its sandbox.
      const sendable =
        req.stdin === undefined && !command.some((arg) => arg.includes('\0')) && !req.skillDir.includes('\0');
      const spare = sendable
        ? bwrap === undefined
          ? spares?.take('')
          : (spares?.take(req.skillDir) ?? spares?.take(''))
        : undefined;
      cgroup = spare === undefined ? await guard.openRun(cgroupLimits) : spare.cgroup;
      const seconds = Math.min(
        req.timeoutSeconds ?? options.defaultTimeoutSeconds,
        options.maxTimeoutSeconds,
      );
      const watchdogPipe = guard.registration;
      const launch = launchCommand({
        command,
        watchdog: watchdogPipe !== undefined,
        // The wrapper joins first thing, so bwrap and everything after it are born in the cgroup.
        procsFiles: cgroup === undefined ? [] : cgroup.procsFiles,
        prlimit,
        limits,
        shell,
        ...(envPath === undefined
          ? {}
          : {
              env: {
                path: envPath,
                keepShlvl: env.SHLVL !== undefined,
                ...(spare === undefined ? {} : { add: perRunVariables(env) }),
              },
            }),
        sandbox: sandboxOptions(req.skillDir),
        // A spare with its sandbox and rlimits in place is sent only env and the script.
        prestarted: spare?.prestarted === true,
      });
      script = await spawnScript({
        file: launch.file,
        args: launch.args,
        cwd: req.skillDir,
        env,
        stdin: req.stdin,
        timeoutMs: Math.min(Math.max(0, seconds * 1000), MAX_TIMER_MS),
        killGraceMs: options.killGraceMs,
        maxOutputBytes: options.maxOutputBytes,
        tailLines: req.tailLines ?? options.defaultTailLines,
        signal: req.signal,
        hooks: hooks(guard, cgroup),
        watchdogPipe,
        onProgress: req.onProgress,
        ...(spare === undefined
          ? {}
          : { spare: { child: spare.child, command: spareMessage(req.skillDir, launch.command) } }),
      });
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

// What a warm spare reads: the working directory, then the argv, each ending in a NUL byte.
/** The passed-on variables of the gateway's environment, and the sandbox's own PATH, HOME and TMPDIR. */
function sharedEnvironment(options: RunnerOptions, sandboxed: boolean): Readonly<Record<string, string>> {
  const source = options.sourceEnv ?? process.env;
  const deny = new Set(options.envDeny ?? []);
  const env: Record<string, string> = {};
  for (const name of options.envPassthrough) {
    const value = source[name];
    if (value !== undefined && !deny.has(name)) env[name] = value;
  }
  if (sandboxed) {
    // The gateway's own paths do not exist inside; home and temp are the run's private /tmp.
    env.PATH = SANDBOX_PATH;
    env.HOME = '/tmp';
    if (env.TMPDIR !== undefined) env.TMPDIR = '/tmp';
  }
  return Object.freeze(env);
}

/**
 * What a run from a warm spare sets with env on top of the shared environment the spare started with: its
 * own two variables, and OLDPWD when the run has one (the spare's shell changed it with its `cd`).
 */
function perRunVariables(env: Readonly<Record<string, string>>): Record<string, string> {
  const own: Record<string, string> = { SKILL_NAME: env.SKILL_NAME ?? '', SKILL_DIR: env.SKILL_DIR ?? '' };
  if (env.OLDPWD !== undefined) own.OLDPWD = env.OLDPWD;
  return own;
}

function spareMessage(cwd: string, argv: readonly string[]): Buffer {
  return Buffer.from([cwd, ...argv].map((item) => `${item}\0`).join(''));
}
