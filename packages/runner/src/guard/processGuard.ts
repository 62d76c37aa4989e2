import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { shellProgram } from '../shellProgram.js';
import { drainCgroup, startTime } from './cgroupProcesses.js';
import { createRunCgroup, type RunCgroup, type RunCgroupLimits } from './runCgroup.js';
import { v1CgroupRoot } from './v1CgroupRoot.js';
import { WATCHDOG_SCRIPT } from './watchdogScript.js';

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
    await drainCgroup(candidate);
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
      : spawn(
          bash,
          [...shellProgram(bash, WATCHDOG_SCRIPT), 'skillgate-watchdog', dir ?? '', memoryDir ?? ''],
          {
            cwd: '/',
            // It needs nothing of the gateway's environment (its secrets least), only where sleep and rmdir are.
            env: { PATH: '/usr/bin:/bin' },
            stdio: ['pipe', 'ignore', 'ignore'],
            // Its own session, so a Ctrl-C or group kill aimed at the gateway leaves it to do its job.
            detached: true,
          },
        );
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
  async function makeRun({ processes, memoryBytes }: RunCgroupLimits): Promise<RunCgroup | undefined> {
    if (dir === undefined) return undefined;
    const run = String(++runs);
    const runDir = join(dir, run);
    await mkdir(runDir);
    if (processes > 0) await writeFile(join(runDir, 'pids.max'), String(processes));
    if (memoryDir === undefined || memoryBytes <= 0) return createRunCgroup(runDir, undefined);
    const memoryRunDir = join(memoryDir, run);
    try {
      await mkdir(memoryRunDir);
      await writeFile(join(memoryRunDir, 'memory.limit_in_bytes'), String(memoryBytes));
    } catch (error) {
      await drainCgroup(runDir);
      await drainCgroup(memoryRunDir);
      throw error;
    }
    // With swap accounting, swap counts too, so the limit cannot be dodged by swapping out.
    await writeFile(join(memoryRunDir, 'memory.memsw.limit_in_bytes'), String(memoryBytes)).catch(() => {});
    return createRunCgroup(runDir, memoryRunDir);
  }
  // One empty run cgroup made ahead per kind of limits, so a run takes one without a syscall on its answer
  // path and the next is made while it runs (about 0.5-1 ms of mkdir and writes; docs/sandbox.md, "Cost").
  // A spare is a fresh cgroup like any other: its counters are zero and it has never held a process.
  const spares = new Map<string, Promise<RunCgroup | undefined>>();
  let closing = false;
  const makeSpare = (limits: RunCgroupLimits): Promise<RunCgroup | undefined> => {
    const spare = makeRun(limits);
    spare.catch(() => {});
    return spare;
  };

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
    async openRun(limits) {
      if (dir === undefined) return undefined;
      const key = `${limits.processes}:${limits.memoryBytes}`;
      const spare = spares.get(key);
      // None after close: the watchdog's sweep may be done already, and a new folder would outlive it.
      if (!closing) spares.set(key, makeSpare(limits));
      // A spare that failed (say, a cgroup removed under the gateway) is made again, now, with its error.
      return (await spare?.catch(() => undefined)) ?? makeRun(limits);
    },
    get registration() {
      return watching && pipe?.writable === true ? pipe : undefined;
    },
    untrack(pgid) {
      tell(`-${pgid}\n`);
    },
    async close() {
      closing = true;
      // A spare still being made would otherwise appear after the sweep below.
      await Promise.allSettled(spares.values());
      // EOF tells the watchdog to sweep this guard's cgroups and exit; it needs no waiting for.
      pipe?.end();
      if (!watching && dir !== undefined) await drainCgroup(dir);
      if (!watching && memoryDir !== undefined) await drainCgroup(memoryDir);
    },
  };
}

async function sweepDeadGateways(root: string): Promise<number> {
  let swept = 0;
  for (const name of await readdir(root)) {
    const owner = OWNER.exec(name);
    if (owner === null) continue;
    if (startTime(Number(owner[1])) === owner[2]) continue;
    swept += await drainCgroup(join(root, name));
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
    await drainCgroup(probe);
    return code === 0;
  } catch {
    return false;
  }
}
