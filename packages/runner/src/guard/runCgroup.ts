import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { drainCgroup, killQuietly, readPids } from './cgroupProcesses.js';

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

/** The cgroups of one run: its pids cgroup folder, and its memory cgroup folder when it has a memory limit. */
export function createRunCgroup(dir: string, memoryDir: string | undefined): RunCgroup {
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
        if (pid !== except) killQuietly(pid, signal);
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
      await drainCgroup(dir);
      if (memoryDir !== undefined) await drainCgroup(memoryDir);
    },
  };
}
