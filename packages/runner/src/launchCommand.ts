import type { ScriptLimits } from './types.js';

// The runner's one shell program: fixed text, run as the first process of every run (and again inside the
// sandbox). Nothing from a request is ever parsed by it: the command arrives as "$@" and is only exec'd.
// $1 is the pid its parent must have ('' skips the check), $2 a cgroup.procs file to join first ('' = none).
// Joining before anything else runs puts every process the script ever forks in the run's cgroup; the
// parent check stops a run whose gateway died while it started (the watchdog may have swept already).
// bwrap and /bin/sh both export PWD, which the script's environment must not gain.
const WRAPPER = `parent=$1 procs=$2
shift 2
if [ -n "$procs" ]; then
  { echo $$ >"$procs"; } 2>/dev/null || { echo "skillgate: could not join the run's cgroup" >&2; exit 125; }
fi
if [ -n "$parent" ]; then
  read -r _ _ _ ppid _ </proc/$$/stat
  [ "$ppid" = "$parent" ] || exit 125
fi
unset PWD
exec "$@"`;

/** Everything that decides the argv of one run. */
export interface LaunchSpec {
  /** What runs: interpreter argv, script path and arguments, all resolved. */
  readonly command: readonly string[];
  /** The gateway's pid, which the wrapper checks is still its parent. */
  readonly parentPid: number;
  /** The run's cgroup.procs file, when runs get a cgroup. */
  readonly procsFile: string | undefined;
  /** prlimit (util-linux), when installed; limits are skipped without it. */
  readonly prlimit: string | undefined;
  readonly limits: ScriptLimits;
  /** bwrap and its options (ending in `--`), when the run is sandboxed. */
  readonly sandbox?: { readonly bwrap: string; readonly options: readonly string[] };
}

/** The file and argv the runner spawns for one run: the wrapper, then bwrap and prlimit as configured. */
export function launchCommand(spec: LaunchSpec): { file: string; args: string[] } {
  const wrap = (parent: string, procs: string, rest: readonly string[]): string[] => [
    '/bin/sh',
    '-c',
    WRAPPER,
    'skillgate-run',
    parent,
    procs,
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
      : [spec.sandbox.bwrap, ...spec.sandbox.options, ...wrap('', '', limited)];
  const [file, ...args] = wrap(String(spec.parentPid), spec.procsFile ?? '', inner);
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
