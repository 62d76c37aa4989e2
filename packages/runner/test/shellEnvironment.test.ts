import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessGuard, createScriptRunner, probeSandbox } from '../src/index.js';
import { request, runnerOptions } from './helpers.js';

// Attack: a variable that steers bash, passed on to scripts (scripts.env_passthrough) or in the gateway's own
// environment, runs code in the gateway's own shells, outside the sandbox. BASH_ENV names a file every
// non-interactive bash sources before its program, --norc or not; in a world-writable place (/tmp), any local
// user's code then ran as the gateway's user in the wrapper of every run and in the watchdog
// (src/shellProgram.ts). The file below leaves a mark on the host; a shell inside the sandbox cannot reach it.

let dir: string;
let bashEnv: string;
const mark = (): string => join(dir, 'bash-env-ran');
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'skillgate-bash-env-'));
  bashEnv = join(dir, 'env.sh');
  await writeFile(bashEnv, `echo "$0 $$" >>'${mark()}'\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const LIMITS = { memoryMb: 256, processes: 12, fileBytes: 1024 * 1024, cpuSeconds: 10 };

describe('variables that steer bash do not reach the gateway’s own shells', () => {
  it('is a real attempt: bash --norc -c sources a BASH_ENV in its environment', async () => {
    await rm(mark(), { force: true });
    spawnSync('/bin/bash', ['--norc', '-c', 'true'], { env: { PATH: '/usr/bin:/bin', BASH_ENV: bashEnv } });
    expect(existsSync(mark())).toBe(true);
  });

  describe.each([
    ['off', async () => undefined],
    ['bwrap', async () => probeSandbox({ mode: 'bwrap' })],
  ])('sandbox %s', (_mode, sandbox) => {
    it('a passed-on BASH_ENV is sourced by no shell outside the sandbox, cold or from a spare, and reaches the script unchanged', async () => {
      await rm(mark(), { force: true });
      const runner = createScriptRunner(
        runnerOptions({
          sandbox: await sandbox(),
          limits: LIMITS,
          interpreters: { '.py': ['/usr/bin/python3'] },
          envPassthrough: ['PATH', 'LANG', 'BASH_ENV'],
          sourceEnv: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', BASH_ENV: bashEnv },
        }),
      );
      try {
        // With input: a cold run. Then runs from a plain spare and (sandboxed) one with its skill's sandbox made.
        const results = [await runner.run(request('shell-env.py', { stdin: 'x' }))];
        for (let i = 0; i < 2; i++) {
          await waitFor(() => spares().length > 0, { what: 'a warm spare' });
          results.push(await runner.run(request('shell-env.py')));
        }
        for (const result of results) {
          expect(result, result.stderr).toMatchObject({ exit_code: 0, stderr: '' });
          expect(JSON.parse(result.stdout)).toMatchObject({ env: { BASH_ENV: bashEnv } });
        }
      } finally {
        await runner.close();
      }
      expect(existsSync(mark()) ? readFileSync(mark(), 'utf8') : '').toBe('');
    });
  });

  it("the watchdog sources no BASH_ENV and holds none of the gateway's variables", async () => {
    await rm(mark(), { force: true });
    const secret = 'watchdog-sees-this-secret';
    const before = new Set(watchdogs());
    process.env.BASH_ENV = bashEnv;
    process.env.SKILLGATE_TEST_SECRET = secret;
    let guard: Awaited<ReturnType<typeof createProcessGuard>> | undefined;
    try {
      guard = await createProcessGuard({ cgroupRoot: null });
    } finally {
      delete process.env.BASH_ENV;
      delete process.env.SKILLGATE_TEST_SECRET;
    }
    const [ours] = watchdogs().filter((pid) => !before.has(pid));
    expect(ours).toBeDefined();
    expect(guard.watchdog).toBe(true);
    const environ = readFileSync(`/proc/${ours}/environ`, 'latin1');
    expect(environ).not.toContain(secret);
    expect(environ).not.toContain('BASH_ENV');
    await guard.close();
    await waitFor(() => !watchdogs().includes(ours ?? ''), { what: 'the watchdog to exit' });
    expect(existsSync(mark())).toBe(false);
  });
});

/** Pids of this process's children with `name` in their argv. */
function children(name: string, check: (argv: string[]) => boolean = () => true): string[] {
  return readdirSync('/proc').filter((entry) => {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      return parent === process.pid && argv.includes(name) && check(argv);
    } catch {
      return false;
    }
  });
}

const watchdogs = (): string[] => children('skillgate-watchdog');
// Idle warm spares: wrappers waiting on descriptor 6.
const spares = (): string[] =>
  children('skillgate-run', (argv) => argv[argv.indexOf('skillgate-run') + 3] === '6');
