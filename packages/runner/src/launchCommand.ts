import type { ScriptLimits } from './types.js';

// The runner's one shell program: fixed text, run as the first process of every run (and again inside the
// sandbox). Nothing from a request is ever parsed by it: the command arrives as "$@" and is only exec'd.
// $1 is non-empty when fd 5 is the watchdog's pipe: the run registers its process group there before
// anything else, then closes it (SIGPIPE is ignored only for that write, should the watchdog be gone).
// $2 lists the cgroup.procs files to join, one a line ('' = none: the run's pids cgroup and, with a memory
// limit, its memory cgroup), so every process the script ever forks is in them.
// $3 lists the descriptors above stdio the run was handed on purpose (bwrap's --info-fd and --block-fd).
// Every other descriptor is closed before anything is exec'd: the gateway may have inherited some without
// close-on-exec (a supervisor's log file, a pipe), and spawning does not close them (docs/sandbox.md,
// "Descriptors"). The shell lists its own /proc/self/fd; bash closes any number, a POSIX sh (dash) only
// 3-9, so the runner prefers bash.
// bwrap and /bin/sh both export PWD, which the script's environment must not gain; bash also exports SHLVL
// (1 at start when it was not set, and again, as 0, at exec even when unset), so it is dropped by env then.
const WRAPPER = `watchdog=$1 procs=$2 keep=" $3 " shlvl=
shift 3
[ "$SHLVL" = 1 ] && [ -n "$BASH_VERSION" ] && [ -x /usr/bin/env ] && shlvl=drop
if [ -n "$watchdog" ]; then
  trap '' PIPE
  echo "+$$" >&5 2>/dev/null
  exec 5>&-
  trap - PIPE
fi
for fd in /proc/self/fd/*; do
  fd=\${fd##*/}
  case $fd in ''|*[!0-9]*|0|1|2) continue ;; esac
  case $keep in *" $fd "*) continue ;; esac
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
unset PWD
[ -n "$shlvl" ] && exec /usr/bin/env -u SHLVL -- "$@"
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
  /** Descriptors above stdio the first process keeps for bwrap (its --info-fd and --block-fd). */
  readonly keepFds?: readonly number[];
  /** The shell that runs the wrapper: bash where there is one (it closes descriptors of any number). */
  readonly shell?: string;
}

/** The file and argv the runner spawns for one run: the wrapper, then bwrap and prlimit as configured. */
export function launchCommand(spec: LaunchSpec): { file: string; args: string[] } {
  const wrap = (watchdog: string, procs: string, keep: string, rest: readonly string[]): string[] => [
    spec.shell ?? '/bin/sh',
    '-c',
    WRAPPER,
    'skillgate-run',
    watchdog,
    procs,
    keep,
    ...rest,
  ];
  const rlimits = rlimitOptions(spec.limits, spec.sandbox !== undefined);
  const limited =
    spec.prlimit === undefined || rlimits.length === 0
      ? [...spec.command]
      : [spec.prlimit, ...rlimits, '--', ...spec.command];
  const inner =
    spec.sandbox === undefined
      ? limited
      : [spec.sandbox.bwrap, ...spec.sandbox.options, ...wrap('', '', '', limited)];
  const keep = (spec.keepFds ?? []).join(' ');
  const [file, ...args] = wrap(spec.watchdog ? '5' : '', spec.procsFiles.join('\n'), keep, inner);
  return { file: file ?? '/bin/sh', args };
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
