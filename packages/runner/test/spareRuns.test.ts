import { readdirSync, readFileSync } from 'node:fs';
import { waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createScriptRunner, probeSandbox, type ScriptRunner } from '../src/index.js';
import { FIXTURES, request, runnerOptions, waitGone } from './helpers.js';

// A warm spare is a run's wrapper started before its run, already registered with the watchdog and in its own
// fresh cgroups, waiting on fd 6 for its command. These runs go through one for certain: each waits until the
// spare is up (a child of this process that still runs the wrapper) before it starts.

const runners: ScriptRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
});

/** Pids of this process's idle warm spares: children still running the wrapper, with a wait descriptor. */
function spares(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = argv.indexOf('skillgate-run');
      if (at > 0 && argv[at + 3] === '6') found.push(Number(entry));
    } catch {
      // Exited while scanning.
    }
  }
  return found;
}

/** How many processes have `text` in their argv now. */
function withInArgv(text: string): number {
  let found = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(text)) found++;
    } catch {
      // Exited while scanning.
    }
  }
  return found;
}

async function spareUp(): Promise<number> {
  await waitFor(() => spares().length > 0, { what: 'a warm spare' });
  return spares()[0] ?? 0;
}

const LIMITS = { memoryMb: 256, processes: 12, fileBytes: 1024 * 1024, cpuSeconds: 10 };

describe.each([
  ['off', async () => undefined],
  ['bwrap', async () => probeSandbox({ mode: 'bwrap' })],
])('warm spares (sandbox %s)', (_mode, sandbox) => {
  async function runner(): Promise<ScriptRunner> {
    const created = createScriptRunner(
      runnerOptions({
        sandbox: await sandbox(),
        limits: LIMITS,
        sourceEnv: { PATH: '/usr/bin:/bin', LANG: 'C' },
      }),
    );
    runners.push(created);
    return created;
  }

  it('a run from a spare gets exactly its environment, its skill folder as cwd and /dev/null as stdin', async () => {
    const scripts = await runner();
    await spareUp();
    const seen = JSON.parse((await scripts.run(request('env.js'))).stdout) as {
      env: Record<string, string>;
      cwd: string;
    };
    expect(seen.env).toMatchObject({ LANG: 'C', SKILL_NAME: 'fixture-skill', SKILL_DIR: FIXTURES });
    expect(Object.keys(seen.env).sort()).toEqual(
      _mode === 'bwrap'
        ? ['HOME', 'LANG', 'PATH', 'SKILL_DIR', 'SKILL_NAME']
        : ['LANG', 'PATH', 'SKILL_DIR', 'SKILL_NAME'],
    );
    expect(`${seen.cwd}/`).toBe(FIXTURES);
    await spareUp();
    // stdin.sh prints what it read: nothing from /dev/null.
    expect((await scripts.run(request('stdin.sh'))).stdout).toBe('got:\n');
    await spareUp();
    expect((await scripts.run(request('args.py', { args: ['a b', '$(id)', 'new\nline', ''] }))).stdout).toBe(
      '["a b", "$(id)", "new\\nline", ""]\n',
    );
  });

  it("puts no passed-on value in any process's argv, where every local user can read it", async () => {
    const secret = `passed-on-${process.pid}-${Date.now()}`;
    const created = createScriptRunner(
      runnerOptions({
        sandbox: await sandbox(),
        limits: LIMITS,
        envPassthrough: ['PATH', 'LANG', 'API_KEY'],
        sourceEnv: { PATH: '/usr/bin:/bin', LANG: 'C', API_KEY: secret },
      }),
    );
    runners.push(created);
    // Every /proc/<pid>/cmdline, scanned between runs' steps for as long as they go on.
    const seenIn = { argv: 0 };
    let scanning = true;
    const scan = (async () => {
      while (scanning) {
        seenIn.argv += withInArgv(secret);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      // The scan is real: a value the caller does put in an argv (an argument of a run that waits until it is
      // seen) is seen.
      await spareUp();
      const stop = new AbortController();
      const control = created.run(request('wait.sh', { args: [secret], signal: stop.signal }));
      await waitFor(() => seenIn.argv > 0, { what: "the control run's argument in an argv" });
      stop.abort();
      await control.catch(() => undefined);
      await waitFor(() => withInArgv(secret) === 0, { what: 'the control run gone' });
      seenIn.argv = 0;
      for (let run = 0; run < 20; run++) {
        await spareUp();
        const seen = JSON.parse((await created.run(request('env.js'))).stdout) as {
          env: Record<string, string>;
        };
        expect(seen.env.API_KEY).toBe(secret);
      }
    } finally {
      scanning = false;
      await scan;
    }
    expect(seenIn.argv).toBe(0);
  });

  it('runs an argument as long as Linux execs (131,071 bytes, the highest scripts.max_arg_bytes), cold and from a spare', async () => {
    const scripts = await runner();
    const longest = 'a'.repeat(131_071);
    // With input a run starts cold; without, from the spare.
    const cold = await scripts.run(request('args.py', { args: [longest], stdin: '' }));
    await spareUp();
    const spared = await scripts.run(request('args.py', { args: [longest] }));
    for (const result of [cold, spared]) {
      expect(result).toMatchObject({ exit_code: 0, stderr: '' });
      expect(result.stdout_bytes).toBe(longest.length + '[""]\n'.length);
    }
  });

  it('each run from a spare has fresh cgroups: a refused fork is reported for its run only', async () => {
    const scripts = await runner();
    await spareUp();
    expect(await scripts.run(request('forks.sh'))).toMatchObject({ limit_exceeded: 'processes' });
    await spareUp();
    expect((await scripts.run(request('fail.sh'))).limit_exceeded).toBeUndefined();
  });

  it('a spare killed from outside while idle is replaced, and the next run still runs', async () => {
    const scripts = await runner();
    const killed = await spareUp();
    process.kill(-killed, 'SIGKILL');
    expect(await waitGone(killed, 3000)).toBe(true);
    expect(await scripts.run(request('fail.sh'))).toMatchObject({
      exit_code: 3,
      stderr: 'something broke\n',
    });
    expect(await spareUp()).not.toBe(killed);
  });

  it('closing the runner ends its idle spare', async () => {
    const scripts = await runner();
    const pid = await spareUp();
    await scripts.close();
    expect(await waitGone(pid, 3000)).toBe(true);
  });
});
