import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createScriptRunner, probeSandbox, type RunnerOptions, type ScriptRunner } from '../src/index.js';
import { runnerOptions } from './helpers.js';

// Sandboxed warm spares by skill folder: after a run of a skill, the runner keeps bwrap started ahead for that
// folder (namespaces, mounts, rlimits made), its waiter inside reading the next run's command. Such a spare
// binds one folder, so it must only ever run that folder's scripts, serve exactly one run, stay bounded in
// number and end when unused.

const runners: ScriptRunner[] = [];
let work: string;
beforeEach(async () => {
  work = realpathSync(await mkdtemp(join(tmpdir(), 'skillgate-skill-spares-')));
});
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
  await rm(work, { recursive: true, force: true });
});

function parentOf(pid: string): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
  } catch {
    return undefined;
  }
}

function argvOf(pid: string): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * The idle warm spares of this process, each as the argv of its child of this process: one per waiting
 * `skillgate-run` shell below it (the wrapper before its run, or the waiter inside a sandbox started ahead).
 */
function spares(): string[][] {
  const found: string[][] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    // A shell still waiting: a cold run's wrapper has no wait descriptor (its third argument).
    const argv = argvOf(entry);
    const wait = argv[argv.indexOf('skillgate-run') + 3] ?? '';
    if (!argv[0]?.endsWith('bash') || !argv.includes('skillgate-run') || !['6', '+6'].includes(wait))
      continue;
    // Up to this process's child.
    let child: string | undefined = entry;
    for (let parent = parentOf(entry); parent !== undefined && parent !== '1'; parent = parentOf(parent)) {
      if (parent === String(process.pid)) {
        found.push(argvOf(child));
        break;
      }
      child = parent;
    }
  }
  return found;
}

/** Idle spares with `dir`'s sandbox made (bwrap, bound to that folder). */
function sparesOf(dir: string): number {
  return spares().filter((argv) => argv[0]?.endsWith('bwrap') === true && argv.includes(dir)).length;
}

async function skill(name: string, script: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'run.sh'), script);
  return dir;
}

async function sandboxed(overrides: Partial<RunnerOptions> = {}): Promise<ScriptRunner> {
  const runner = createScriptRunner(
    runnerOptions({
      sandbox: await probeSandbox({ mode: 'bwrap' }),
      limits: { memoryMb: 256, processes: 16, fileBytes: 1024 * 1024, cpuSeconds: 10 },
      sourceEnv: { PATH: '/usr/bin:/bin' },
      ...overrides,
    }),
  );
  runners.push(runner);
  return runner;
}

async function run(runner: ScriptRunner, dir: string): Promise<string> {
  const result = await runner.run({
    skillName: 'skill',
    skillDir: dir,
    scriptPath: join(dir, 'run.sh'),
    executable: false,
    principal: 'alice',
  });
  expect(result.exit_code, result.stderr).toBe(0);
  return result.stdout;
}

describe('sandboxed warm spares by skill folder', () => {
  it("a spare made for skill X never runs skill Y's script: Y's run sees its own folder and not X's", async () => {
    const x = await skill('x', 'echo x\n');
    const y = await skill('y', `echo y; [ -e ${join(work, 'x', 'run.sh')} ] && echo sees-x; true\n`);
    const runner = await sandboxed();
    expect(await run(runner, x)).toBe('x\n');
    await waitFor(() => sparesOf(x) > 0, { what: "a spare with x's sandbox" });
    expect(await run(runner, y)).toBe('y\n');
    // Y's run left X's spare alone, and X's next run takes it.
    expect(sparesOf(x)).toBeGreaterThan(0);
    expect(await run(runner, x)).toBe('x\n');
  });

  it("a spare's sandbox serves one run: each run from one starts with an empty /tmp and its own PID namespace", async () => {
    const dir = await skill(
      'fresh',
      '[ -e /tmp/mark ] && echo reused; echo "$$" >/tmp/mark; ls /proc | grep -c "^[0-9]"\n',
    );
    const runner = await sandboxed();
    await run(runner, dir);
    for (let i = 0; i < 3; i++) {
      await waitFor(() => sparesOf(dir) > 0, { what: 'a spare with the sandbox made' });
      // Its own processes only: bwrap's pid 1 and the script (the ls and grep of the pipeline).
      expect(Number(await run(runner, dir))).toBeLessThanOrEqual(4);
    }
  });

  it('idle spares are bounded by spares.max and ended after spares.idleMs unused', async () => {
    const dir = await skill('busy', 'echo ok\n');
    const runner = await sandboxed({ spares: { max: 2, idleMs: 1500 } });
    for (let round = 0; round < 3; round++) {
      const outputs = await Promise.all(Array.from({ length: 4 }, () => run(runner, dir)));
      expect(outputs).toEqual(['ok\n', 'ok\n', 'ok\n', 'ok\n']);
    }
    // Four runs at a time asked for four spares: two are made, the others not; then none is left unused.
    let most = 0;
    await waitFor(
      () => {
        const idle = spares().length;
        most = Math.max(most, idle);
        return most > 0 && idle === 0;
      },
      { timeoutMs: 10_000, intervalMs: 5, what: 'the idle spares to be ended' },
    );
    expect(most).toBe(2);
  });

  it("a spare of one skill gives way to another skill's only once it waited spares.evictAfterMs unused", async () => {
    const x = await skill('kept', 'echo x\n');
    const y = await skill('other', 'echo y\n');
    const runner = await sandboxed({ spares: { max: 2, idleMs: 60_000, evictAfterMs: 2000 } });
    expect(await run(runner, x)).toBe('x\n');
    await waitFor(() => sparesOf(x) > 0, { what: "a spare with x's sandbox" });
    // Two spares at most, both in use (x's and the plain one): y's run does not end x's fresh spare for its own.
    expect(await run(runner, y)).toBe('y\n');
    expect(sparesOf(x)).toBe(1);
    // Once x's spare waited long enough, a run of y takes its place.
    await waitFor(async () => (await run(runner, y)) === 'y\n' && sparesOf(y) > 0, {
      timeoutMs: 15_000,
      what: "a spare with y's sandbox",
    });
    expect(sparesOf(x)).toBe(0);
  });

  it('a skill folder swapped for another at the same path after its spare bound it: the run sees the new one', async () => {
    const dir = await skill('swapped', 'echo old\n');
    const runner = await sandboxed();
    expect(await run(runner, dir)).toBe('old\n');
    await waitFor(() => sparesOf(dir) > 0, { what: 'a spare with the sandbox made' });
    await rename(dir, `${dir}.old`);
    await skill('swapped', 'echo new\n');
    expect(await run(runner, dir)).toBe('new\n');
  });
});

describe.each([
  ['off', 1024 * 1024],
  ['bwrap', 1024 * 1024],
  // Not a whole number of bash's 1024-byte blocks: prlimit sets them in the run's chain instead.
  ['bwrap', 1_000_000],
  ['off', 1_000_000],
] as const)('rlimits of a run from a spare (sandbox %s, file_bytes %i)', (mode, fileBytes) => {
  it('are exactly those of a cold run', async () => {
    const dir = await skill('limits', 'cat "/proc/$$/limits"\n');
    const runner = createScriptRunner(
      runnerOptions({
        sandbox: mode === 'bwrap' ? await probeSandbox({ mode: 'bwrap' }) : undefined,
        limits: { memoryMb: 200, processes: 20, fileBytes, cpuSeconds: 7 },
        sourceEnv: { PATH: '/usr/bin:/bin' },
      }),
    );
    runners.push(runner);
    const req = {
      skillName: 'limits',
      skillDir: dir,
      scriptPath: join(dir, 'run.sh'),
      executable: false,
      principal: 'alice',
    };
    await runner.run(req);
    await waitFor(() => (mode === 'bwrap' ? sparesOf(dir) : spares().length) > 0, { what: 'a spare' });
    const fromSpare = (await runner.run(req)).stdout;
    // A run with input never takes a spare.
    const cold = (await runner.run({ ...req, stdin: '' })).stdout;
    expect(fromSpare).toBe(cold);
    expect(cold).toMatch(/^Max cpu time\s+7\s+8\s/m);
    expect(cold).toMatch(/^Max data size\s+209715200\s+209715200\s/m);
    expect(cold).toMatch(new RegExp(`^Max file size\\s+${fileBytes}\\s+${fileBytes}\\s`, 'm'));
    expect(cold).toMatch(/^Max core file size\s+0\s+0\s/m);
    if (mode === 'bwrap') expect(cold).toMatch(/^Max processes\s+21\s+21\s/m);
  });
});
