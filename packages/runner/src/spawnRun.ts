import type { ProcessGuard } from './guard/processGuard.js';
import type { RunCgroup } from './guard/runCgroup.js';
import { launchCommand } from './launchCommand.js';
import type { LaunchSetup } from './launchSetup.js';
import { runHooks } from './runHooks.js';
import type { SpareRun } from './spareRuns.js';
import { spawnScript } from './spawnScript.js';
import type { RunnerOptions, RunningScript, RunRequest } from './types.js';

// setTimeout fires at once for longer delays, which would kill every script on spawn.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Options of spawnRun: one run's request and what it was given (its slot is already held). */
export interface SpawnRunOptions {
  readonly setup: LaunchSetup;
  readonly options: Pick<
    RunnerOptions,
    'defaultTimeoutSeconds' | 'maxTimeoutSeconds' | 'killGraceMs' | 'maxOutputBytes' | 'defaultTailLines'
  >;
  readonly req: RunRequest;
  /** The run's whole environment. */
  readonly env: Readonly<Record<string, string>>;
  /** The resolved command (interpreter and script). */
  readonly command: readonly string[];
  readonly guard: ProcessGuard;
  readonly cgroup: RunCgroup | undefined;
  /** The warm spare the run takes over, if one was free. */
  readonly spare: SpareRun | undefined;
}

/** Launches one run: the confinement chain (cgroup, rlimits, sandbox) and the script, cold or in a spare. */
export function spawnRun(run: SpawnRunOptions): Promise<RunningScript> {
  const { setup, options, req, env, cgroup, spare, guard } = run;
  const seconds = Math.min(req.timeoutSeconds ?? options.defaultTimeoutSeconds, options.maxTimeoutSeconds);
  const watchdogPipe = guard.registration;
  const launch = launchCommand({
    command: run.command,
    watchdog: watchdogPipe !== undefined,
    // The wrapper joins first thing, so bwrap and everything after it are born in the cgroup.
    procsFiles: cgroup === undefined ? [] : cgroup.procsFiles,
    prlimit: setup.prlimit,
    limits: setup.limits,
    shell: setup.shell,
    ...(setup.envPath === undefined
      ? {}
      : {
          env: {
            path: setup.envPath,
            keepShlvl: env.SHLVL !== undefined,
            ...(spare === undefined ? {} : { add: perRunVariables(env) }),
          },
        }),
    sandbox: setup.sandboxOptions(req.skillDir),
    // A spare with its sandbox and rlimits in place is sent only env and the script.
    prestarted: spare?.prestarted === true,
  });
  return spawnScript({
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
    hooks: runHooks(setup, guard, cgroup),
    watchdogPipe,
    onProgress: req.onProgress,
    ...(spare === undefined
      ? {}
      : { spare: { child: spare.child, command: spareMessage(req.skillDir, launch.command) } }),
  });
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

// What a warm spare reads: the working directory, then the argv, each ending in a NUL byte.
function spareMessage(cwd: string, argv: readonly string[]): Buffer {
  return Buffer.from([cwd, ...argv].map((item) => `${item}\0`).join(''));
}
