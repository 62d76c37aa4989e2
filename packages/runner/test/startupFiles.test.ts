import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessGuard, createScriptRunner } from '../src/index.js';
import { request, runnerOptions } from './helpers.js';

// bash started with -c and a socket on stdin (node's 'pipe') reads ~/.bashrc when SHLVL is unset, as under
// Docker, systemd and turbo (src/shellProgram.ts). A home whose .bashrc leaves a mark shows whether the
// gateway's own shells read it; the control below shows that such a shell would.

let home: string;
const marker = (): string => join(home, 'bashrc-ran');
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'skillgate-home-'));
  await writeFile(join(home, '.bashrc'), 'echo "$0" >>"$HOME/bashrc-ran"; echo FROM-BASHRC\n');
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const withoutShlvl = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([name]) => name !== 'SHLVL'));

describe("the gateway's shells read no start-up file", () => {
  it('is a real attempt: bash -c with a socket on stdin and no SHLVL reads ~/.bashrc', () => {
    const control = spawnSync('/bin/bash', ['-c', 'echo control'], {
      env: withoutShlvl({ ...process.env, HOME: home }),
      stdio: 'pipe',
      input: '',
    });
    expect(String(control.stdout)).toBe('FROM-BASHRC\ncontrol\n');
    expect(existsSync(marker())).toBe(true);
  });

  it("a run with input: the wrapper does not read the script's home's .bashrc, and stdout is the script's own", async () => {
    await rm(marker(), { force: true });
    const runner = createScriptRunner(
      runnerOptions({ sourceEnv: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' } }),
    );
    try {
      const result = await runner.run(request('stdin.sh', { stdin: 'hello' }));
      expect(result).toMatchObject({ exit_code: 0, stdout: 'got:hello\n', stderr: '' });
      expect(existsSync(marker())).toBe(false);
    } finally {
      await runner.close();
    }
  });

  it("the watchdog does not read the gateway user's .bashrc", async () => {
    await rm(marker(), { force: true });
    const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL };
    const before = new Set(watchdogs());
    process.env.HOME = home;
    delete process.env.SHLVL;
    let guard: Awaited<ReturnType<typeof createProcessGuard>> | undefined;
    try {
      guard = await createProcessGuard({ cgroupRoot: null });
    } finally {
      process.env.HOME = saved.HOME;
      if (saved.SHLVL !== undefined) process.env.SHLVL = saved.SHLVL;
    }
    const [ours] = watchdogs().filter((pid) => !before.has(pid));
    expect(ours).toBeDefined();
    expect(guard.watchdog).toBe(true);
    // Its pipe's end makes it exit; a start-up file, had it read one, ran before anything else.
    await guard.close();
    await waitFor(() => !watchdogs().includes(ours ?? ''), { what: 'the watchdog to exit' });
    expect(existsSync(marker())).toBe(false);
  });
});

/** Pids of this process's watchdog children. */
function watchdogs(): string[] {
  return readdirSync('/proc').filter((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return (
        parent === process.pid &&
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('skillgate-watchdog')
      );
    } catch {
      return false;
    }
  });
}
