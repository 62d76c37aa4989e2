import { findExecutable } from './findExecutable.js';
import type { RunCgroupLimits } from './guard/runCgroup.js';
import type { LaunchSpec } from './launchCommand.js';
import { type CommandResolver, createCommandResolver } from './resolveCommand.js';
import { sandboxArguments } from './sandbox/sandboxArguments.js';
import { SANDBOX_PATH, type SystemLayout, systemLayout } from './sandbox/systemLayout.js';
import type { RunnerOptions, ScriptLimits } from './types.js';

const MIB = 1024 * 1024;
const NO_LIMITS: ScriptLimits = { memoryMb: 0, processes: 0, fileBytes: 0, cpuSeconds: 0 };
// Processes of a sandboxed run that are not the script's: bwrap outside and bwrap as pid 1 inside.
const BWRAP_PROCESSES = 2;

/** What every launch of a runner is made from: found once, when the runner is created. */
export interface LaunchSetup {
  /** bubblewrap's path when runs are sandboxed, else undefined. */
  readonly bwrap: string | undefined;
  readonly network: boolean;
  readonly limits: ScriptLimits;
  /** The system directories a sandbox binds, when runs are sandboxed. */
  readonly layout: SystemLayout | undefined;
  readonly resolver: CommandResolver;
  /** prlimit, bash and env of the system directories (inside the sandbox too), where found. */
  readonly prlimit: string | undefined;
  readonly shell: string | undefined;
  readonly envPath: string | undefined;
  /** The cgroup limits of one run: the script's processes plus the sandbox's own. */
  readonly cgroupLimits: RunCgroupLimits;
  /**
   * What every run's environment holds but SKILL_NAME and SKILL_DIR: read once, like every other option. A
   * warm spare is started with it (never in an argv, where any local user could read a secret passed on).
   */
  readonly shared: Readonly<Record<string, string>>;
  /** The sandbox of a run in this skill folder, or undefined when runs are not sandboxed. */
  sandboxOptions(skillDir: string): LaunchSpec['sandbox'];
}

/** Finds the tools and reads the options every launch of a runner uses. */
export function launchSetup(options: RunnerOptions): LaunchSetup {
  const bwrap = options.sandbox?.mode === 'bwrap' ? options.sandbox.bwrapPath : undefined;
  const network = options.network ?? false;
  const limits = options.limits ?? NO_LIMITS;
  const layout = bwrap === undefined ? undefined : systemLayout(network);
  const overhead = bwrap === undefined ? 0 : BWRAP_PROCESSES;
  return {
    bwrap,
    network,
    limits,
    layout,
    resolver: createCommandResolver({ interpreters: options.interpreters, sandbox: layout }),
    // Inside the sandbox it must sit in the system directories, which /usr/bin and /bin are.
    prlimit: findExecutable('prlimit', '/usr/bin:/bin'),
    // The wrapper's shell: bash closes inherited descriptors of any number.
    shell: findExecutable('bash', '/usr/bin:/bin'),
    // Inside the sandbox too (it sits in /usr/bin): takes PWD and SHLVL out of the script's environment.
    envPath: findExecutable('env', '/usr/bin:/bin'),
    cgroupLimits: {
      processes: limits.processes > 0 ? limits.processes + overhead : 0,
      memoryBytes: limits.memoryMb * MIB,
    },
    shared: sharedEnvironment(options, bwrap !== undefined),
    sandboxOptions: (skillDir) =>
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
          },
  };
}

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
