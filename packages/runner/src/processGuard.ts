import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** One run's cgroups (cgroup v1: pids, and memory when the run has a memory limit). */
export interface RunCgroup {
  /** The pids cgroup's cgroup.procs. */
  readonly procsFile: string;
  /** Every cgroup.procs file the run's first process joins: the pids one, then the memory one. */
  readonly procsFiles: readonly string[];
  /** Moves a process (and its threads) into the cgroup; without waiting for it on the event loop. */
  add(pid: number): Promise<void>;
  /** Sends `signal` to every process in the cgroup except `except`. */
  signal(signal: NodeJS.Signals, except?: number): void;
  /** Whether the pids limit refused a fork during the run. */
  hitPidsLimit(): boolean;
  /** Whether the kernel killed a process of the run for going over its memory cgroup's limit. */
  hitMemoryLimit(): boolean;
  /** Kills whatever is left and removes the cgroup. */
  remove(): Promise<void>;
}

/** What one run's cgroups allow; 0 = no limit. */
export interface RunCgroupLimits {
  /** Tasks (processes and threads) at once. */
  readonly processes: number;
  /** Memory of all the run's processes together (page cache and tmpfs included), in bytes. */
  readonly memoryBytes: number;
}

/** Makes sure no script process outlives its run or the gateway (docs/sandbox.md). */
export interface ProcessGuard {
  /** Whether runs get their own cgroup. */
  readonly cgroup: boolean;
  /** Whether runs with a memory limit also get a memory cgroup (v1 memory controller). */
  readonly memoryCgroup: boolean;
  /** Whether the watchdog process is running. */
  readonly watchdog: boolean;
  /** Script processes of earlier, dead gateways killed at start-up. */
  readonly sweptProcesses: number;
  /** New cgroups for one run, or undefined without cgroups. */
  openRun(limits: RunCgroupLimits): Promise<RunCgroup | undefined>;
  /**
   * The gateway's end of the watchdog's pipe, for a run's first process to inherit (as fd 5) and register
   * itself on; undefined without a watchdog.
   */
  readonly registration: Writable | undefined;
  /** Tells the watchdog the run's process group is gone. */
  untrack(pgid: number): void;
  /** Stops the watchdog and removes this guard's cgroups. */
  close(): Promise<void>;
}

// The watchdog: a bash process that outlives a SIGKILLed gateway by exactly as long as it needs to kill what
// the gateway left. Its stdin is a pipe whose write end only the gateway holds, so EOF means the gateway is
// gone (or closed the runner). Each run's first process inherits that write end, writes "+<its pid>" (its
// process group) and closes it before it runs anything: so the watchdog cannot see EOF while a run it does
// not know of is starting, however the gateway dies. On EOF it kills every group it was told of (the
// gateway writes "-<pid>" when a run ended) and, with cgroups, sweeps this gateway's run cgroups.
const WATCHDOG = `trap '' INT TERM HUP QUIT PIPE
declare -A groups=()
while IFS= read -r line; do
  if [[ $line =~ ^[+]([0-9]+)$ ]]; then groups[\${BASH_REMATCH[1]}]=1
  elif [[ $line =~ ^-([0-9]+)$ ]]; then unset "groups[\${BASH_REMATCH[1]}]"
  fi
done
for pgid in "\${!groups[@]}"; do kill -KILL -- "-$pgid" 2>/dev/null; done
sweep() {
  local dir=$1 round run pid
  for ((round = 0; round < 400; round++)); do
    for run in "$dir"/*/; do
      [ -d "$run" ] || continue
      while read -r pid; do kill -KILL "$pid" 2>/dev/null; done <"\${run}cgroup.procs"
      rmdir "$run" 2>/dev/null
    done
    rmdir "$dir" 2>/dev/null && return
    [ -d "$dir" ] || return
    sleep 0.05
  done
}
for dir in "$@"; do
  [ -n "$dir" ] && sweep "$dir"
done
exit 0`;

// Directory names of gateways: <pid>-<start time in clock ticks>-<random>, so a reused pid is told apart.
const OWNER = /^(\d+)-(\d+)-[0-9a-f]+$/;

/** Options of createProcessGuard (tests point it elsewhere). */
export interface ProcessGuardOptions {
  /** Parent folder of every gateway's run cgroups; default: `skillgate` in this process's pids cgroup. */
  readonly cgroupRoot?: string | null;
  /** The same for memory cgroups; default: `skillgate` in this process's memory cgroup (v1). */
  readonly memoryCgroupRoot?: string | null;
}

/** This gateway's folder under `root` (after sweeping dead gateways' folders there), or undefined. */
async function ownFolder(root: string, name: string): Promise<{ dir?: string; swept: number }> {
  try {
    await mkdir(root, { recursive: true });
    const swept = await sweepDeadGateways(root);
    const candidate = join(root, name);
    await mkdir(candidate);
    if (await canJoin(candidate)) return { dir: candidate, swept };
    await drain(candidate);
    return { swept };
  } catch {
    return { swept: 0 };
  }
}

/** Sets up run cgroups (when the pids controller is writable), sweeps those of dead gateways, starts the watchdog. */
export async function createProcessGuard(options: ProcessGuardOptions = {}): Promise<ProcessGuard> {
  const root = options.cgroupRoot === undefined ? v1CgroupRoot('pids') : (options.cgroupRoot ?? undefined);
  const name = `${process.pid}-${startTime(process.pid)}-${randomBytes(4).toString('hex')}`;
  const pids = root === undefined ? { swept: 0 } : await ownFolder(root, name);
  const dir = pids.dir;
  let sweptProcesses = pids.swept;
  // A memory cgroup only ever comes with a pids one: the pids cgroup is what ends a run's processes.
  const memoryRoot =
    options.memoryCgroupRoot === undefined ? v1CgroupRoot('memory') : (options.memoryCgroupRoot ?? undefined);
  const memory =
    dir === undefined || memoryRoot === undefined ? { swept: 0 } : await ownFolder(memoryRoot, name);
  const memoryDir = memory.dir;
  sweptProcesses += memory.swept;

  const bash = ['/bin/bash', '/usr/bin/bash'].find((path) => existsSync(path));
  const watchdog =
    bash === undefined
      ? undefined
      : spawn(bash, ['-c', WATCHDOG, 'skillgate-watchdog', dir ?? '', memoryDir ?? ''], {
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
    get memoryCgroup() {
      return memoryDir !== undefined;
    },
    get watchdog() {
      return watching;
    },
    sweptProcesses,
    async openRun({ processes, memoryBytes }) {
      if (dir === undefined) return undefined;
      const run = String(++runs);
      const runDir = join(dir, run);
      await mkdir(runDir);
      if (processes > 0) await writeFile(join(runDir, 'pids.max'), String(processes));
      if (memoryDir === undefined || memoryBytes <= 0) return runCgroup(runDir, undefined);
      const memoryRunDir = join(memoryDir, run);
      try {
        await mkdir(memoryRunDir);
        await writeFile(join(memoryRunDir, 'memory.limit_in_bytes'), String(memoryBytes));
      } catch (error) {
        await drain(runDir);
        await drain(memoryRunDir);
        throw error;
      }
      // With swap accounting, swap counts too, so the limit cannot be dodged by swapping out.
      await writeFile(join(memoryRunDir, 'memory.memsw.limit_in_bytes'), String(memoryBytes)).catch(() => {});
      return runCgroup(runDir, memoryRunDir);
    },
    get registration() {
      return watching && pipe?.writable === true ? pipe : undefined;
    },
    untrack(pgid) {
      tell(`-${pgid}\n`);
    },
    async close() {
      // EOF tells the watchdog to sweep this guard's cgroups and exit; it needs no waiting for.
      pipe?.end();
      if (!watching && dir !== undefined) await drain(dir);
      if (!watching && memoryDir !== undefined) await drain(memoryDir);
    },
  };
}

function runCgroup(dir: string, memoryDir: string | undefined): RunCgroup {
  const procsFile = join(dir, 'cgroup.procs');
  const procsFiles = memoryDir === undefined ? [procsFile] : [procsFile, join(memoryDir, 'cgroup.procs')];
  return {
    procsFile,
    procsFiles,
    async add(pid) {
      for (const file of procsFiles) await writeFile(file, String(pid));
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
    hitMemoryLimit() {
      if (memoryDir === undefined) return false;
      try {
        const control = readFileSync(join(memoryDir, 'memory.oom_control'), 'utf8');
        return Number(/^oom_kill (\d+)/m.exec(control)?.[1] ?? 0) > 0;
      } catch {
        return false;
      }
    },
    async remove() {
      await drain(dir);
      if (memoryDir !== undefined) await drain(memoryDir);
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

// The folder for skillgate's cgroups inside this process's own cgroup of a v1 controller, from mountinfo.
function v1CgroupRoot(controller: 'pids' | 'memory'): string | undefined {
  try {
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .map((line) => /^\d+:([^:]*):(.*)$/.exec(line))
      .find((m) => m?.[1]?.split(',').includes(controller))?.[2];
    if (own === undefined) return undefined;
    for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
      const [mount, fs] = line.split(' - ');
      const [type, , superOptions = ''] = fs?.split(' ') ?? [];
      if (type !== 'cgroup' || !superOptions.split(',').includes(controller)) continue;
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
