import { readFileSync } from 'node:fs';
import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Kills every process in a cgroup (and its child cgroups) until it can be removed; returns how many it killed. */
export async function drainCgroup(dir: string): Promise<number> {
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
    for (const child of children) inChildren += await drainCgroup(join(dir, child));
    for (const pid of readPids(join(dir, 'cgroup.procs'))) {
      killQuietly(pid, 'SIGKILL');
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

/** Field 22 of /proc/<pid>/stat (start time in clock ticks), or undefined when the process is gone. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** The pids in a cgroup.procs file (none when it cannot be read). */
export function readPids(file: string): number[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** Sends a signal to a process that may already be gone. */
export function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}
