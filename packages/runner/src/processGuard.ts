import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** One run's cgroup (cgroup v1 pids controller). */
export interface RunCgroup {
  /** The file the run's first process writes its pid to. */
  readonly procsFile: string;
  /** Moves a process (and its threads) into the cgroup; without waiting for it on the event loop. */
  add(pid: number): Promise<void>;
  /** Sends `signal` to every process in the cgroup except `except`. */
  signal(signal: NodeJS.Signals, except?: number): void;
  /** Whether the pids limit refused a fork during the run. */
  hitPidsLimit(): boolean;
  /** Kills whatever is left and removes the cgroup. */
  remove(): Promise<void>;
}

/** Makes sure no script process outlives its run or the gateway (docs/sandbox.md). */
export interface ProcessGuard {
  /** Whether runs get their own cgroup. */
  readonly cgroup: boolean;
  /** Whether the watchdog process is running. */
  readonly watchdog: boolean;
  /** Script processes of earlier, dead gateways killed at start-up. */
  readonly sweptProcesses: number;
  /** A new cgroup allowing `processes` tasks (0 = no limit), or undefined without cgroups. */
  openRun(processes: number): Promise<RunCgroup | undefined>;
  /** Tells the watchdog about a run's process group; call right after the spawn. */
  track(pgid: number): void;
  /** Tells the watchdog the run's process group is gone. */
  untrack(pgid: number): void;
  /** Stops the watchdog and removes this guard's cgroups. */
  close(): Promise<void>;
}

// The watchdog: a bash process that outlives a SIGKILLed gateway by exactly as long as it needs to kill what
// the gateway left. Its stdin is a pipe only the gateway writes to, so EOF means the gateway is gone (or
// closed the runner). It learns each run's process group over that pipe and, with cgroups, sweeps every run
// cgroup of this gateway until none is left: a wrapper that joins one after the sweep finds it removed.
const WATCHDOG = `trap '' INT TERM HUP QUIT PIPE
declare -A groups=()
while IFS= read -r line; do
  if [[ $line =~ ^[+]([0-9]+)$ ]]; then groups[\${BASH_REMATCH[1]}]=1
  elif [[ $line =~ ^-([0-9]+)$ ]]; then unset "groups[\${BASH_REMATCH[1]}]"
  fi
done
for pgid in "\${!groups[@]}"; do kill -KILL -- "-$pgid" 2>/dev/null; done
dir=$1
[ -n "$dir" ] || exit 0
for ((round = 0; round < 400; round++)); do
  for run in "$dir"/*/; do
    [ -d "$run" ] || continue
    while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"\${run}cgroup.procs"
    rmdir "$run" 2>/dev/null
  done
  rmdir "$dir" 2>/dev/null && exit 0
  [ -d "$dir" ] || exit 0
  sleep 0.05
done`;

// Directory names of gateways: <pid>-<start time in clock ticks>-<random>, so a reused pid is told apart.
const OWNER = /^(\d+)-(\d+)-[0-9a-f]+$/;

/** Options of createProcessGuard (tests point it elsewhere). */
export interface ProcessGuardOptions {
  /** Parent folder of every gateway's run cgroups; default: `skillgate` in this process's pids cgroup. */
  readonly cgroupRoot?: string | null;
}

/** Sets up run cgroups (when the pids controller is writable), sweeps those of dead gateways, starts the watchdog. */
export async function createProcessGuard(options: ProcessGuardOptions = {}): Promise<ProcessGuard> {
  const root = options.cgroupRoot === undefined ? pidsCgroupRoot() : (options.cgroupRoot ?? undefined);
  let sweptProcesses = 0;
  let dir: string | undefined;
  if (root !== undefined) {
    try {
      await mkdir(root, { recursive: true });
      sweptProcesses = await sweepDeadGateways(root);
      const candidate = join(
        root,
        `${process.pid}-${startTime(process.pid)}-${randomBytes(4).toString('hex')}`,
      );
      await mkdir(candidate);
      dir = (await canJoin(candidate)) ? candidate : undefined;
      if (dir === undefined) await drain(candidate);
    } catch {
      dir = undefined;
    }
  }

  const bash = ['/bin/bash', '/usr/bin/bash'].find((path) => existsSync(path));
  const watchdog =
    bash === undefined
      ? undefined
      : spawn(bash, ['-c', WATCHDOG, 'skillgate-watchdog', dir ?? ''], {
          cwd: '/',
          stdio: ['pipe', 'ignore', 'ignore'],
          // Its own session, so a Ctrl-C or group kill aimed at the gateway leaves it to do its job.
          detached: true,
        });
  let watching = watchdog !== undefined;
  const stopped = (): void => {
    watching = false;
  };
  watchdog?.once('exit', stopped);
  watchdog?.once('error', stopped);
  const pipe = watchdog?.stdin ?? undefined;
  pipe?.on('error', stopped);
  // Neither the watchdog nor its pipe may keep the gateway's event loop alive.
  watchdog?.unref();
  if (pipe !== undefined && 'unref' in pipe && typeof pipe.unref === 'function') pipe.unref();
  const tell = (line: string): void => {
    if (watching && pipe?.writable === true) pipe.write(line);
  };

  let runs = 0;
  return {
    get cgroup() {
      return dir !== undefined;
    },
    get watchdog() {
      return watching;
    },
    sweptProcesses,
    async openRun(processes) {
      if (dir === undefined) return undefined;
      const runDir = join(dir, String(++runs));
      await mkdir(runDir);
      if (processes > 0) await writeFile(join(runDir, 'pids.max'), String(processes));
      return runCgroup(runDir);
    },
    track(pgid) {
      tell(`+${pgid}\n`);
    },
    untrack(pgid) {
      tell(`-${pgid}\n`);
    },
    async close() {
      // EOF tells the watchdog to sweep this guard's cgroups and exit; it needs no waiting for.
      pipe?.end();
      if (!watching && dir !== undefined) await drain(dir);
    },
  };
}

function runCgroup(dir: string): RunCgroup {
  const procsFile = join(dir, 'cgroup.procs');
  return {
    procsFile,
    async add(pid) {
      await writeFile(procsFile, String(pid));
    },
    signal(signal, except) {
      for (const pid of readPids(procsFile)) {
        if (pid !== except) kill(pid, signal);
      }
    },
    hitPidsLimit() {
      try {
        const events = readFileSync(join(dir, 'pids.events'), 'utf8');
        return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0) > 0;
      } catch {
        return false;
      }
    },
    async remove() {
      await drain(dir);
    },
  };
}

// Kills every process in a cgroup (and its child cgroups) until it can be removed; returns how many it killed.
async function drain(dir: string): Promise<number> {
  const killed = new Set<number>();
  let inChildren = 0;
  for (let round = 0; round < 200; round++) {
    let children: string[];
    try {
      children = (await readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      break;
    }
    for (const child of children) inChildren += await drain(join(dir, child));
    for (const pid of readPids(join(dir, 'cgroup.procs'))) {
      kill(pid, 'SIGKILL');
      killed.add(pid);
    }
    try {
      await rmdir(dir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
    }
    // Killed processes leave the cgroup a moment later.
    await sleep(Math.min(2 ** round, 20));
  }
  return killed.size + inChildren;
}

async function sweepDeadGateways(root: string): Promise<number> {
  let swept = 0;
  for (const name of await readdir(root)) {
    const owner = OWNER.exec(name);
    if (owner === null) continue;
    if (startTime(Number(owner[1])) === owner[2]) continue;
    swept += await drain(join(root, name));
  }
  return swept;
}

// A real join, by a throwaway shell, exactly as the wrapper of a run does it.
async function canJoin(dir: string): Promise<boolean> {
  const probe = join(dir, 'probe');
  try {
    await mkdir(probe);
    const child = spawn('/bin/sh', ['-c', 'echo $$ >"$1"', 'skillgate-probe', join(probe, 'cgroup.procs')], {
      stdio: 'ignore',
    });
    const code = await new Promise<number | null>((resolve) => {
      child.once('exit', (exitCode) => resolve(exitCode));
      child.once('error', () => resolve(null));
    });
    await drain(probe);
    return code === 0;
  } catch {
    return false;
  }
}

// The folder for skillgate's cgroups inside this process's own pids cgroup (v1), from mountinfo.
function pidsCgroupRoot(): string | undefined {
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .map((line) => /^\d+:([^:]*):(.*)$/.exec(line))
      .find((m) => m?.[1]?.split(',').includes('pids'))?.[2];
    if (own === undefined) return undefined;
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [mount, fs] = line.split(' - ');
      const [type, , superOptions = ''] = fs?.split(' ') ?? [];
      if (type !== 'cgroup' || !superOptions.split(',').includes('pids')) continue;
      const fields = mount?.split(' ') ?? [];
      const mountRoot = unescapeMountPath(fields[3] ?? '/');
      const mountPoint = unescapeMountPath(fields[4] ?? '');
      if (mountPoint === '') continue;
      // A container sees its own cgroup as the mount's root; the path in /proc/self/cgroup is relative to it.
      const inside = mountRoot === '/' ? own : own.startsWith(mountRoot) ? own.slice(mountRoot.length) : '/';
      return join(mountPoint, inside, 'skillgate');
    }
  } catch {
    // No /proc (not Linux): no cgroups.
  }
  return undefined;
}

function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks), or undefined when the process is gone. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

function readPids(file: string): number[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}
