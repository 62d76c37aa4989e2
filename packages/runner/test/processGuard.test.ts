import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { describe, expect, it } from 'vitest';
import { drainCgroup } from '../src/guard/cgroupProcesses.js';
import { createProcessGuard } from '../src/guard/processGuard.js';
import { isAlive, waitGone } from './helpers.js';

// Root with a writable cgroup v1 pids hierarchy (the CI machine): run cgroups are available.
const CGROUPS = process.getuid?.() === 0 && existsSync('/sys/fs/cgroup/pids/cgroup.procs');

function sleeper(): number {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  child.unref();
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

describe('the watchdog', () => {
  it('kills the process groups that registered once the gateway side of its pipe closes, not those that ended', async () => {
    const guard = await createProcessGuard({ cgroupRoot: null });
    expect(guard.watchdog).toBe(true);
    const registration = guard.registration;
    if (registration === undefined) throw new Error('no watchdog pipe');
    // Each run registers itself on the inherited pipe (fd 5), as the runner's wrapper does.
    const registered = (): number => {
      const child = spawn('/bin/sh', ['-c', 'echo "+$$" >&5; exec 5>&-; exec sleep 30'], {
        detached: true,
        stdio: ['ignore', 'ignore', 'ignore', 'ignore', 'ignore', registration],
      });
      child.unref();
      if (child.pid === undefined) throw new Error('no pid');
      return child.pid;
    };
    const tracked = registered();
    const untracked = registered();
    // Each registered before it exec'd sleep: once both run sleep, the watchdog has read both lines.
    const runsSleep = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep');
      } catch {
        return false;
      }
    };
    await waitFor(() => runsSleep(tracked) && runsSleep(untracked), { what: 'both runs registered' });
    guard.untrack(untracked);
    try {
      await guard.close();
      expect(await waitGone(tracked, 3000)).toBe(true);
      expect(isAlive(untracked)).toBe(true);
    } finally {
      for (const pid of [tracked, untracked]) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});

describe('run cgroups', () => {
  it(`are ${CGROUPS ? '' : 'not '}available here`, async () => {
    const guard = await createProcessGuard();
    expect(guard.cgroup).toBe(CGROUPS);
    await guard.close();
  });

  if (!CGROUPS) return;

  it('cap the processes of a run, count the refused forks, and take everything down on removal', async () => {
    const guard = await createProcessGuard();
    const run = await guard.openRun({ processes: 4, memoryBytes: 0 });
    if (run === undefined) throw new Error('no run cgroup');
    const child = spawn(
      '/bin/sh',
      ['-c', 'echo $$ >"$1"; for i in 1 2 3 4 5 6; do setsid sleep 30 & done; wait', 'sh', run.procsFile],
      { stdio: 'ignore', detached: true },
    );
    try {
      // The shell forks until the pids limit refuses it: wait for that refusal, not for a clock.
      await waitFor(() => run.hitPidsLimit(), { what: 'the pids limit to refuse a fork' });
      const members = readFileSync(run.procsFile, 'utf8').trim().split('\n');
      expect(members.length).toBeLessThanOrEqual(4);
      expect(run.hitPidsLimit()).toBe(true);
      await run.remove();
      for (const pid of members) expect(await waitGone(Number(pid))).toBe(true);
      expect(existsSync(run.procsFile)).toBe(false);
    } finally {
      child.kill('SIGKILL');
      await guard.close();
    }
  });

  it("sweep what is left in a dead gateway's cgroups at start-up", async () => {
    const root = `/sys/fs/cgroup/pids/skillgate-test-${randomBytes(4).toString('hex')}`;
    // A gateway that never existed: pid 1's directory with a start time pid 1 does not have.
    const dead = join(root, `1-999999999-${randomBytes(4).toString('hex')}`, '7');
    await mkdir(dead, { recursive: true });
    const survivor = sleeper();
    await writeFile(join(dead, 'cgroup.procs'), String(survivor));
    const guard = await createProcessGuard({ cgroupRoot: root });
    try {
      expect(guard.sweptProcesses).toBe(1);
      expect(await waitGone(survivor)).toBe(true);
      expect((await readdir(root)).filter((name) => name.startsWith('1-'))).toEqual([]);
    } finally {
      if (isAlive(survivor)) process.kill(survivor, 'SIGKILL');
      await guard.close();
      // Removed with whatever the watchdog has not removed yet (it does so as it exits).
      await drainCgroup(root);
    }
  });
});
