import { shellProgram } from './shellProgram.js';
import type { ScriptLimits } from './types.js';

// The runner's one shell program: fixed text, run as the first process of every run, outside the sandbox.
// Nothing from a request is ever parsed by it: the command arrives as "$@" and is only exec'd.
// $1 is non-empty when fd 5 is the watchdog's pipe: the run registers its process group there before
// anything else, then closes it (SIGPIPE is ignored only for that write, should the watchdog be gone).
// $2 lists the cgroup.procs files to join, one a line ('' = none: the run's pids cgroup and, with a memory
// limit, its memory cgroup), so every process the script ever forks, bwrap's included, is in them.
// Every descriptor above stdio is closed before anything is exec'd: the gateway may have inherited some
// without close-on-exec (a supervisor's log file, a pipe), and spawning does not close them (docs/sandbox.md,
// "Descriptors"). The shell lists its own /proc/self/fd; bash closes any number, a POSIX sh (dash) only
// 3-9, so the runner prefers bash. bwrap opens nothing it passes on, so inside the sandbox nothing more is
// needed: the run's chain is this wrapper, bwrap, prlimit, env, the script, and nothing else.
// $3 is non-empty for a warm spare (spareRuns.ts): a wrapper started ahead of its run, which registers, closes
// every descriptor but that one and joins as above. It then waits on that descriptor (never stdin, which stays
// /dev/null) for the run's working directory and command, each item ending in a NUL byte, then end-of-file.
// bash reads them with read -d '', which keeps every byte but NUL (no argv can hold one), and execs them as they
// came, after setting the rlimits "$@" names (`ulimit` options as -x=value: the same limits as prlimit's, set
// by the shell that execs the run, so no prlimit process is on its way). Written "+6", it execs "$@" at once instead, keeping the descriptor open: a sandbox started ahead, whose
// last link is this same program again (nothing to register or join), waiting inside the sandbox.
const WRAPPER = `watchdog=$1 procs=$2 wait=$3 receive=1
shift 3
case $wait in +*) wait=\${wait#+} receive= ;; esac
if [ -n "$watchdog" ]; then
  trap '' PIPE
  echo "+$$" >&5 2>/dev/null
  exec 5>&-
  trap - PIPE
fi
for fd in /proc/self/fd/*; do
  fd=\${fd##*/}
  case $fd in ''|*[!0-9]*|0|1|2|"$wait") continue ;; esac
  if [ -n "$BASH_VERSION" ] || [ "$fd" -lt 10 ]; then eval "exec $fd>&-"; fi
done
if [ -n "$procs" ]; then
  set -f
  IFS='
'
  for file in $procs; do
    { echo $$ >"$file"; } 2>/dev/null || { echo "skillgate: could not join the run's cgroup" >&2; exit 125; }
  done
  unset IFS
  set +f
fi
if [ -n "$wait" ] && [ -n "$receive" ]; then
  for limit in "$@"; do ulimit "\${limit%%=*}" "\${limit#*=}" || exit 125; done
  IFS= read -r -d '' -u "$wait" dir || exit 125
  set --
  while IFS= read -r -d '' -u "$wait" arg; do set -- "$@" "$arg"; done
  eval "exec $wait<&-"
  [ $# -gt 0 ] && cd -P -- "$dir" || exit 125
fi
unset PWD
exec "$@"`;

/** Everything that decides the argv of one run. */
export interface LaunchSpec {
  /** What runs: interpreter argv, script path and arguments, all resolved. */
  readonly command: readonly string[];
  /** Whether fd 5 of the run is the watchdog's pipe, to register on. */
  readonly watchdog: boolean;
  /** The run's cgroup.procs files (pids, then memory), when runs get cgroups. */
  readonly procsFiles: readonly string[];
  /** prlimit (util-linux), when installed; limits are skipped without it. */
  readonly prlimit: string | undefined;
  readonly limits: ScriptLimits;
  /** bwrap and its options (ending in `--`), when the run is sandboxed. */
  readonly sandbox?: { readonly bwrap: string; readonly options: readonly string[] };
  /**
   * For a warm spare: the descriptor the wrapper reads its run's working directory and command from, after it
   * joined its cgroups (`command` is then empty). Needs bash.
   */
  readonly waitFd?: number;
  /**
   * For a warm spare started with its sandbox (`waitFd` set): the wrapper execs `command` at once, keeping
   * `waitFd` open, and the last link of `command` (`spareWaiter`) reads the run's command inside.
   */
  readonly passWaitFd?: boolean;
  /**
   * The run goes to a spare whose sandbox and rlimits are already in place: `command` (what it is sent) is
   * then only env and the script.
   */
  readonly prestarted?: boolean;
  /** The shell that runs the wrapper: bash where there is one (it closes descriptors of any number). */
  readonly shell?: string;
  /**
   * env (coreutils), to take out what the wrapper's shell and bwrap add to the environment: `PWD` always,
   * and `SHLVL` when the run's own environment has none (bash exports it at exec, even when unset).
   * Without it the command starts with those two.
   */
  readonly env?: {
    readonly path: string;
    readonly keepShlvl: boolean;
    /**
     * For a warm spare, started with the environment every run shares: what this run sets on top (its
     * SKILL_NAME and SKILL_DIR, its OLDPWD if any), and OLDPWD is taken out first (the spare's `cd` set it).
     * Only these reach an argv, where any local user can read them: never a passed-on value.
     */
    readonly add?: Readonly<Record<string, string>>;
  };
}

/**
 * The file and argv the runner spawns for one run: the wrapper, then bwrap, prlimit and env as configured; and
 * `command`, that argv after the wrapper's own arguments (what a warm spare is sent).
 */
export function launchCommand(spec: LaunchSpec): { file: string; args: string[]; command: string[] } {
  const command = literalCommand(spec.command);
  const add = spec.env?.add;
  const clean =
    spec.env === undefined
      ? [...command]
      : [
          spec.env.path,
          '-u',
          'PWD',
          ...(spec.env.keepShlvl ? [] : ['-u', 'SHLVL']),
          ...(add === undefined ? [] : ['-u', 'OLDPWD']),
          '--',
          ...Object.entries(add ?? {}).map(([name, value]) => `${name}=${value}`),
          ...command,
        ];
  const inner = spec.prestarted === true ? clean : [...confinement(spec), ...clean];
  const shell = spec.shell ?? '/bin/sh';
  return {
    file: shell,
    args: [
      ...shellProgram(shell, WRAPPER),
      'skillgate-run',
      spec.watchdog ? '5' : '',
      spec.procsFiles.join('\n'),
      spec.waitFd === undefined ? '' : `${spec.passWaitFd === true ? '+' : ''}${spec.waitFd}`,
      ...inner,
    ],
    command: inner,
  };
}

/**
 * The last link of a spare started with its sandbox: the wrapper's program again, inside the sandbox, with
 * nothing to register or join; it closes every descriptor but `waitFd`, reads the run's directory and command
 * there and execs them.
 */
export function spareWaiter(shell: string, waitFd: number, ulimits: readonly string[]): string[] {
  return [shell, ...shellProgram(shell, WRAPPER), 'skillgate-run', '', '', String(waitFd), ...ulimits];
}

/**
 * The rlimits of `rlimitOptions` as bash `ulimit` options (-x=value), for a spare's waiting shell to set; undefined
 * when bash cannot say them exactly (a file_bytes that is not a whole number of its 1024-byte blocks).
 */
export function ulimitOptions(limits: ScriptLimits, sandboxed: boolean): string[] | undefined {
  if (limits.fileBytes % 1024 !== 0) return undefined;
  const options: string[] = [];
  if (limits.memoryMb > 0) options.push(`-d=${limits.memoryMb * 1024}`);
  if (limits.fileBytes > 0) options.push(`-f=${limits.fileBytes / 1024}`);
  // Both at the hard value first: a soft limit above a new hard one is refused.
  if (limits.cpuSeconds > 0) options.push(`-t=${limits.cpuSeconds + 1}`, `-St=${limits.cpuSeconds}`);
  if (sandboxed && limits.processes > 0) options.push(`-u=${limits.processes + 1}`);
  if (options.length > 0) options.push('-c=0');
  return options;
}

/** bwrap with its options, then prlimit with the run's rlimits (each when configured): what precedes env. */
export function confinement(spec: LaunchSpec): string[] {
  const rlimits = rlimitOptions(spec.limits, spec.sandbox !== undefined);
  const limited = spec.prlimit === undefined || rlimits.length === 0 ? [] : [spec.prlimit, ...rlimits, '--'];
  // prlimit runs inside the sandbox: RLIMIT_NPROC counts per user namespace only there.
  return spec.sandbox === undefined ? limited : [spec.sandbox.bwrap, ...spec.sandbox.options, ...limited];
}

/**
 * The command as env must see it: env takes every operand with "=" before its command as an assignment, `--`
 * or not, so a script whose path holds one (a skill under `/srv/team=a/`) would become a variable and env
 * would run the caller's first argument as the command. Such a command goes through sh's exec, which takes
 * its operands literally.
 */
function literalCommand(command: readonly string[]): readonly string[] {
  return command[0]?.includes('=') ? ['/bin/sh', '-c', 'exec "$0" "$@"', ...command] : command;
}

// prlimit options for the limits; 0 means no limit.
function rlimitOptions(limits: ScriptLimits, sandboxed: boolean): string[] {
  const options: string[] = [];
  // RLIMIT_DATA, not RLIMIT_AS: node reserves far more address space than it uses and dies under AS.
  if (limits.memoryMb > 0) options.push(`--data=${limits.memoryMb * 1024 * 1024}`);
  if (limits.fileBytes > 0) options.push(`--fsize=${limits.fileBytes}`);
  // One second between soft and hard, so a breach shows as SIGXCPU rather than an anonymous SIGKILL.
  if (limits.cpuSeconds > 0) options.push(`--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`);
  // Inside the sandbox's user namespace this counts only the run's processes (plus bwrap's pid 1, hence the
  // +1); outside it would count every process of the gateway's user. Root is exempt either way, so the cgroup
  // pids limit is the one that holds for a gateway running as root.
  if (sandboxed && limits.processes > 0) options.push(`--nproc=${limits.processes + 1}`);
  // No core files: a SIGXCPU or SIGXFSZ would otherwise try to dump one into the skill folder.
  if (options.length > 0) options.push('--core=0');
  return options;
}
