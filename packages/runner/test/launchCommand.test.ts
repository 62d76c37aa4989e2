import { describe, expect, it } from 'vitest';
import { launchCommand } from '../src/launchCommand.js';

const NO_LIMITS = { memoryMb: 0, processes: 0, fileBytes: 0, cpuSeconds: 0 };
const HOSTILE = ['$(touch /tmp/pwned)', '"; rm -rf / #', '`id`'];
const base = {
  command: ['/usr/bin/python3', '/skills/a/scripts/x.py', ...HOSTILE],
  watchdog: true,
  procsFiles: [],
  prlimit: '/usr/bin/prlimit',
  limits: NO_LIMITS,
};

describe('launchCommand', () => {
  it('runs a fixed shell program; the command only ever arrives as its arguments', () => {
    const plain = launchCommand(base);
    const sandboxed = launchCommand({
      ...base,
      limits: { memoryMb: 64, processes: 8, fileBytes: 1024, cpuSeconds: 2 },
      sandbox: { bwrap: '/usr/bin/bwrap', options: ['--unshare-all', '--'] },
    });
    expect(plain.file).toBe('/bin/sh');
    expect(plain.args[0]).toBe('-c');
    expect(sandboxed.args[1]).toBe(plain.args[1]);
    for (const value of HOSTILE) expect(plain.args[1]).not.toContain(value);
    expect(plain.args.slice(-HOSTILE.length)).toEqual(HOSTILE);
    expect(sandboxed.args.slice(-HOSTILE.length)).toEqual(HOSTILE);
  });

  it('registers with the watchdog and joins the cgroup outside, then runs the command without limits when none are set', () => {
    const { args } = launchCommand({
      ...base,
      procsFiles: ['/sys/fs/cgroup/pids/x/1/cgroup.procs', '/sys/fs/cgroup/memory/x/1/cgroup.procs'],
    });
    expect(args.slice(2, 6)).toEqual([
      'skillgate-run',
      '5',
      '/sys/fs/cgroup/pids/x/1/cgroup.procs\n/sys/fs/cgroup/memory/x/1/cgroup.procs',
      '',
    ]);
    expect(args.slice(6)).toEqual(base.command);
    expect(launchCommand({ ...base, watchdog: false }).args.slice(2, 4)).toEqual(['skillgate-run', '']);
  });

  it('sets the limits with prlimit; the process limit only inside the sandbox', () => {
    const limits = { memoryMb: 64, processes: 8, fileBytes: 1024, cpuSeconds: 2 };
    const plain = launchCommand({ ...base, limits }).args;
    expect(plain.slice(6, plain.indexOf('--') + 1)).toEqual([
      '/usr/bin/prlimit',
      `--data=${64 * 1024 * 1024}`,
      '--fsize=1024',
      '--cpu=2:3',
      '--core=0',
      '--',
    ]);
    const sandboxed = launchCommand({
      ...base,
      limits,
      sandbox: { bwrap: '/usr/bin/bwrap', options: ['--'] },
    }).args;
    // Outside: the wrapper execs bwrap; inside: prlimit, straight away (no second shell).
    expect(sandboxed.slice(6, 9)).toEqual(['/usr/bin/bwrap', '--', '/usr/bin/prlimit']);
    expect(sandboxed).toContain('--nproc=9');
    expect(plain.some((arg) => arg.startsWith('--nproc'))).toBe(false);
  });

  it('skips the limits when prlimit is not installed', () => {
    const { args } = launchCommand({ ...base, prlimit: undefined, limits: { ...NO_LIMITS, memoryMb: 64 } });
    expect(args.slice(6)).toEqual(base.command);
  });

  it('takes PWD, and SHLVL unless the run has its own, out of the environment with env, last before the command', () => {
    const sandbox = { bwrap: '/usr/bin/bwrap', options: ['--'] };
    const env = { path: '/usr/bin/env', keepShlvl: false };
    const { file, args } = launchCommand({ ...base, shell: '/usr/bin/bash', sandbox, env });
    expect(file).toBe('/usr/bin/bash');
    // bash reads no start-up file and runs nothing of its environment (src/shellProgram.ts); its program's own
    // arguments follow as with sh.
    expect(args.slice(0, 2)).toEqual(['--norc', '-pc']);
    expect(args.slice(7)).toEqual([
      '/usr/bin/bwrap',
      '--',
      '/usr/bin/env',
      '-u',
      'PWD',
      '-u',
      'SHLVL',
      '--',
      ...base.command,
    ]);
    const own = launchCommand({ ...base, env: { ...env, keepShlvl: true } }).args;
    expect(own.slice(6)).toEqual(['/usr/bin/env', '-u', 'PWD', '--', ...base.command]);
  });

  it("a warm spare waits on its descriptor with no command; its run's argv holds only the run's own variables", () => {
    const spare = launchCommand({ ...base, command: [], waitFd: 6 });
    expect(spare.args.slice(3)).toEqual(['5', '', '6']);
    const { command } = launchCommand({
      ...base,
      env: { path: '/usr/bin/env', keepShlvl: false, add: { SKILL_NAME: 'a=b', SKILL_DIR: '/skills/a' } },
    });
    expect(command).toEqual([
      '/usr/bin/env',
      '-u',
      'PWD',
      '-u',
      'SHLVL',
      '-u',
      'OLDPWD',
      '--',
      'SKILL_NAME=a=b',
      'SKILL_DIR=/skills/a',
      ...base.command,
    ]);
  });
});
