import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createScriptRunner,
  probeSandbox,
  RunnerError,
  type RunnerErrorCode,
  type RunProgress,
  type ScriptRunner,
} from '../src/index.js';
import { FIXTURES, isAlive, printedPid, request, runnerOptions, until, waitGone } from './helpers.js';

const runners: ScriptRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.close()));
});

function runnerWith(overrides: Parameters<typeof runnerOptions>[0] = {}): ScriptRunner {
  const runner = createScriptRunner(runnerOptions(overrides));
  runners.push(runner);
  return runner;
}

async function codeOf(promise: Promise<unknown>): Promise<RunnerErrorCode | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    if (error instanceof RunnerError) return error.code;
    throw error;
  }
}

describe('running a script', () => {
  it('returns exit code 0, stdout and empty stderr for a successful run', async () => {
    const result = await runnerWith().run(request('args.py', { args: ['a', 'b'] }));
    expect(result).toMatchObject({
      exit_code: 0,
      signal: null,
      timed_out: false,
      stdout: '["a", "b"]\n',
      stderr: '',
      stdout_truncated: false,
      stderr_truncated: false,
      stdout_bytes: 11,
      stderr_bytes: 0,
    });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('reports a non-zero exit with its stdout and stderr as a result, not an error', async () => {
    const result = await runnerWith().run(request('fail.sh'));
    expect(result).toMatchObject({
      exit_code: 3,
      signal: null,
      stdout: 'partial result\n',
      stderr: 'something broke\n',
    });
  });

  it('passes hostile arguments verbatim, because no shell is involved', async () => {
    const args = [
      'with space',
      `"double" 'single'`,
      'ünïcødé ✓',
      '$(touch pwned)',
      'a; rm -rf /',
      '`id`',
      '*',
      '$HOME',
    ];
    const result = await runnerWith().run(request('args.py', { args }));
    expect(JSON.parse(result.stdout)).toEqual(args);
  });

  it('decodes output as UTF-8', async () => {
    const result = await runnerWith().run(request('unicode.py'));
    expect(result.stdout).toBe('héllo wörld ✓ 日本\n');
  });

  it('writes stdin to the script and closes it', async () => {
    const result = await runnerWith().run(request('stdin.sh', { stdin: 'hello\nworld' }));
    expect(result.stdout).toBe('got:hello\nworld\n');
  });

  it('gives a script without stdin an immediate EOF instead of a hang', async () => {
    const result = await runnerWith().run(request('stdin.sh', { timeoutSeconds: 2 }));
    expect(result).toMatchObject({ exit_code: 0, timed_out: false, stdout: 'got:\n' });
  });

  it('ignores EPIPE when the script exits without reading its stdin', async () => {
    const runner = runnerWith({ maxStdinBytes: 4 * 1024 * 1024 });
    const result = await runner.run(request('args.py', { stdin: 'x'.repeat(4 * 1024 * 1024) }));
    expect(result.exit_code).toBe(0);
  });

  it('refuses stdin over maxStdinBytes before spawning', async () => {
    const runner = runnerWith({ maxStdinBytes: 8 });
    expect(await codeOf(runner.run(request('stdin.sh', { stdin: '123456789' })))).toBe(
      'RUNNER_INPUT_TOO_LARGE',
    );
    expect(runner.active).toBe(0);
  });
});

describe('choosing what runs', () => {
  it('runs an executable file by its shebang when no interpreter matches its extension', async () => {
    const result = await runnerWith().run(request('shebang-tool', { executable: true, args: ['x y'] }));
    expect(result).toMatchObject({ exit_code: 0, stdout: 'shebang ran with 1 args: x y\n' });
  });

  it('matches the extension case-insensitively', async () => {
    const runner = runnerWith({ interpreters: { '.PY': ['python3'] } });
    const result = await runner.run(request('args.py', { args: ['ok'] }));
    expect(result.stdout).toBe('["ok"]\n');
  });

  it('fails with RUNNER_NO_INTERPRETER for a non-executable file without a configured interpreter', async () => {
    expect(await codeOf(runnerWith().run(request('shebang-tool')))).toBe('RUNNER_NO_INTERPRETER');
  });

  it('fails with RUNNER_SPAWN_FAILED when a file said to be executable cannot be executed', async () => {
    const runner = runnerWith({ interpreters: {} });
    expect(await codeOf(runner.run(request('args.py', { executable: true })))).toBe('RUNNER_SPAWN_FAILED');
  });

  it('fails with RUNNER_SPAWN_FAILED, keeping the cause, when the interpreter is missing', async () => {
    const runner = runnerWith({ interpreters: { '.py': ['skillgate-no-such-interpreter'] } });
    const error = await runner.run(request('args.py')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect((error as RunnerError).code).toBe('RUNNER_SPAWN_FAILED');
    expect((error as RunnerError).cause).toBeDefined();
    expect(runner.active).toBe(0);
  });
});

describe('environment', () => {
  it('passes only allowed variables plus SKILL_NAME and SKILL_DIR, and runs in the skill directory', async () => {
    const runner = runnerWith({
      envPassthrough: ['PATH', 'LANG', 'GATEWAY_TOKEN', 'ABSENT_VAR'],
      envDeny: ['GATEWAY_TOKEN'],
      sourceEnv: { PATH: process.env.PATH, LANG: 'C.UTF-8', GATEWAY_TOKEN: 'secret', OTHER_SECRET: 'secret' },
    });
    const result = await runner.run(request('env.js', { skillName: 'env-skill' }));
    const seen = JSON.parse(result.stdout) as { env: Record<string, string>; cwd: string };
    expect(seen.env).toEqual({
      PATH: process.env.PATH,
      LANG: 'C.UTF-8',
      SKILL_NAME: 'env-skill',
      SKILL_DIR: FIXTURES,
    });
    expect(join(seen.cwd, '/')).toBe(FIXTURES);
  });

  it('keeps secrets of the gateway process environment away from the script by default', async () => {
    process.env.SKILLGATE_TEST_SECRET = 'hunter2';
    try {
      const result = await runnerWith().run(request('env.js'));
      const seen = JSON.parse(result.stdout) as { env: Record<string, string> };
      expect(seen.env.SKILLGATE_TEST_SECRET).toBeUndefined();
      expect(seen.env.PATH).toBe(process.env.PATH);
      expect(result.stdout).not.toContain('hunter2');
    } finally {
      delete process.env.SKILLGATE_TEST_SECRET;
    }
  });
});

describe('killing', () => {
  it('kills a SIGTERM-ignoring script and its child within timeout plus grace', async () => {
    const runner = runnerWith({ killGraceMs: 300 });
    const started = Date.now();
    const result = await runner.run(request('ignore-term.sh', { timeoutSeconds: 0.5 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({ timed_out: true, signal: 'SIGKILL', exit_code: null });
    expect(await waitGone(printedPid(result.stdout, 'child'))).toBe(true);
  });

  it('clamps the requested timeout to maxTimeoutSeconds', async () => {
    const runner = runnerWith({ maxTimeoutSeconds: 0.5 });
    const result = await runner.run(request('wait.sh', { timeoutSeconds: 60 }));
    expect(result).toMatchObject({ timed_out: true, signal: 'SIGTERM' });
    expect(result.duration_ms).toBeLessThan(3000);
  });

  it('returns promptly when the script exits leaving a background child on its stdout, and kills the child', async () => {
    const started = Date.now();
    const result = await runnerWith().run(request('background.sh'));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result).toMatchObject({ exit_code: 0, timed_out: false });
    expect(await waitGone(printedPid(result.stdout, 'child'))).toBe(true);
  });

  it('kills a child that left the process group (setsid) when the run ends, through the run cgroup', async () => {
    const runner = runnerWith({ killGraceMs: 300 });
    const { cgroup } = await runner.ready();
    const started = Date.now();
    const result = await runner.run(request('escape.sh'));
    const child = printedPid(result.stdout, 'child');
    try {
      expect(result.exit_code).toBe(0);
      expect(Date.now() - started).toBeLessThan(3000);
      // Without a writable pids cgroup (not root, or a container) nothing can find the escaped child.
      expect(await waitGone(child)).toBe(cgroup);
    } finally {
      if (isAlive(child)) process.kill(child, 'SIGKILL');
    }
  });

  it('cancels a running script through RunningScript.cancel, killing its group', async () => {
    const script = await runnerWith().start(request('wait.sh'));
    await until(() => script.output().stderr.includes('pid'));
    script.cancel();
    const result = await script.done;
    expect(script.cancelled).toBe(true);
    expect(result).toMatchObject({ timed_out: false, signal: 'SIGTERM' });
    expect(result.duration_ms).toBeLessThan(3000);
  });

  it('cancels a running script when the request signal aborts', async () => {
    const controller = new AbortController();
    const script = await runnerWith().start(request('wait.sh', { signal: controller.signal }));
    await until(() => script.output().stdout.includes('started'));
    controller.abort();
    const result = await script.done;
    expect(result.signal).toBe('SIGTERM');
    expect(script.cancelled).toBe(true);
  });

  it('a cancellation that comes while the run is being set up stops it too (no listener yet then)', async () => {
    const runner = runnerWith();
    const controller = new AbortController();
    const outcome = runner.run(request('wait.sh', { signal: controller.signal })).then(
      (result) => (result.timed_out ? 'ran into its timeout' : result.signal),
      (error: unknown) => (error instanceof RunnerError ? error.code : String(error)),
    );
    // The slot is taken before the cgroup is opened and the script spawned: abort on the first turn of the
    // event loop that sees it taken (checked every turn, not on a clock, to land inside that window).
    while (runner.active !== 1) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    // Either refused before the spawn or stopped by the cancel; never left to run into its timeout.
    expect(['SIGTERM', 'RUNNER_ABORTED']).toContain(await outcome);
  });

  it('close() kills running scripts and rejects queued runs with RUNNER_CLOSED', async () => {
    const runner = createScriptRunner(runnerOptions({ maxConcurrent: 1 }));
    const script = await runner.start(request('wait.sh'));
    await until(() => script.output().stderr.includes('pid'));
    const pid = printedPid(script.output().stderr, 'pid');
    const queued = codeOf(runner.run(request('args.py')));
    await until(() => runner.queued === 1);
    await runner.close();
    expect(await queued).toBe('RUNNER_CLOSED');
    expect(isAlive(pid)).toBe(false);
    expect((await script.done).signal).toBe('SIGTERM');
    expect(runner.active).toBe(0);
    expect(await codeOf(runner.run(request('args.py')))).toBe('RUNNER_CLOSED');
  });
});

describe('output limits', () => {
  it('keeps only the tail of a flood, counts every byte and stays within bounded memory', async () => {
    // A whole number of 11-byte 'flood line\n' lines, about 200 MB.
    const flood = 11 * 18_000_000;
    // The time limit is generous: on a loaded 2-core machine writing 200 MB through a pipe takes seconds.
    const runner = runnerWith({ maxOutputBytes: 64 * 1024, defaultTimeoutSeconds: 20 });
    const before = process.memoryUsage();
    let peak = 0;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
    }, 5);
    try {
      const result = await runner.run(request('flood.sh', { args: [String(flood)], tailLines: 1_000_000 }));
      expect(result.stdout_bytes).toBe(flood);
      expect(result.stdout_truncated).toBe(true);
      expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(64 * 1024);
      expect(result.stdout.endsWith('flood line\n')).toBe(true);
      // Uncollected garbage chunks make this noisy; keeping the whole stream would take about 200 MB.
      expect(peak).toBeLessThan(64 * 1024 * 1024);
    } finally {
      clearInterval(sampler);
    }
  });

  it('returns the last tailLines lines and flags the cut', async () => {
    const runner = runnerWith();
    const result = await runner.run(request('lines.py', { args: ['50'], tailLines: 3 }));
    expect(result).toMatchObject({ stdout: 'line 48\nline 49\nline 50\n', stdout_truncated: true });
    const all = await runner.run(request('lines.py', { args: ['3'], tailLines: 3 }));
    expect(all).toMatchObject({ stdout: 'line 1\nline 2\nline 3\n', stdout_truncated: false });
  });

  it('uses defaultTailLines when the request names none', async () => {
    const result = await runnerWith({ defaultTailLines: 2 }).run(request('lines.py', { args: ['10'] }));
    expect(result.stdout).toBe('line 9\nline 10\n');
  });

  it('shows live output of a running script', async () => {
    const script = await runnerWith().start(request('quick.js', { args: ['live'] }));
    await until(() => script.output().stdout === 'first live\n');
    expect(script.output().stdout_bytes).toBe(11);
    expect((await script.done).stdout).toBe('first live\nsecond\n');
  });
});

describe('concurrency', () => {
  it('queues runs over maxConcurrent and starts them in order as slots free', async () => {
    const runner = runnerWith({ maxConcurrent: 1, maxQueue: 2 });
    const first = await runner.start(request('wait.sh', { args: ['one'] }));
    const order: string[] = [];
    const second = runner.start(request('quick.js', { args: ['two'] })).then((s) => {
      order.push('two');
      return s.done;
    });
    const third = runner.start(request('quick.js', { args: ['three'] })).then((s) => {
      order.push('three');
      return s.done;
    });
    await until(() => runner.queued === 2);
    expect(runner.active).toBe(1);
    first.cancel();
    expect((await second).stdout).toContain('first two');
    expect((await third).stdout).toContain('first three');
    expect(order).toEqual(['two', 'three']);
    expect(runner.active).toBe(0);
  });

  it('fails fast with RUNNER_BUSY when the queue is full, naming the limit', async () => {
    const runner = runnerWith({ maxConcurrent: 1, maxQueue: 0 });
    const first = await runner.start(request('wait.sh'));
    const error = await runner.run(request('args.py')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect((error as RunnerError).code).toBe('RUNNER_BUSY');
    expect((error as RunnerError).message).toContain('max_concurrent');
    first.cancel();
    await first.done;
  });

  it('fails with RUNNER_BUSY when a queued run waits longer than queueTimeoutMs', async () => {
    const runner = runnerWith({ maxConcurrent: 1, queueTimeoutMs: 200 });
    const first = await runner.start(request('wait.sh'));
    expect(await codeOf(runner.run(request('args.py')))).toBe('RUNNER_BUSY');
    expect(runner.queued).toBe(0);
    first.cancel();
    await first.done;
  });

  it('caps runs per principal while other principals still run', async () => {
    const runner = runnerWith({ maxConcurrent: 4, maxConcurrentPerPrincipal: 1, maxQueue: 0 });
    const alice = await runner.start(request('wait.sh'));
    expect(await codeOf(runner.run(request('args.py')))).toBe('RUNNER_BUSY');
    const bob = await runner.run(request('args.py', { principal: 'bob', args: ['bob'] }));
    expect(bob.stdout).toBe('["bob"]\n');
    alice.cancel();
    await alice.done;
    expect((await runner.run(request('args.py'))).exit_code).toBe(0);
  });

  it('lets another principal pass a queued run that is blocked only by its own principal cap', async () => {
    const runner = runnerWith({ maxConcurrent: 2, maxConcurrentPerPrincipal: 1 });
    const alice = await runner.start(request('wait.sh'));
    const aliceQueued = runner.run(request('args.py'));
    await until(() => runner.queued === 1);
    const bob = await runner.run(request('args.py', { principal: 'bob' }));
    expect(bob.exit_code).toBe(0);
    expect(runner.queued).toBe(1);
    alice.cancel();
    expect((await aliceQueued).exit_code).toBe(0);
  });

  it('removes a queued run from the queue when its signal aborts', async () => {
    const runner = runnerWith({ maxConcurrent: 1 });
    const first = await runner.start(request('wait.sh'));
    const controller = new AbortController();
    const queued = codeOf(runner.run(request('args.py', { signal: controller.signal })));
    await until(() => runner.queued === 1);
    controller.abort();
    expect(await queued).toBe('RUNNER_ABORTED');
    expect(runner.queued).toBe(0);
    first.cancel();
    await first.done;
    expect(runner.active).toBe(0);
  });

  it('releases the slot after a run, whatever its outcome', async () => {
    const runner = runnerWith({ maxConcurrent: 1, maxQueue: 0 });
    await runner.run(request('fail.sh'));
    await runner.run(request('wait.sh', { timeoutSeconds: 0.3 }));
    await codeOf(runner.run(request('shebang-tool')));
    expect(runner.active).toBe(0);
    expect((await runner.run(request('args.py'))).exit_code).toBe(0);
  });
});

it('exposes RunningScript.startedAt as the spawn time', async () => {
  const before = Date.now();
  const script = await runnerWith().start(request('args.py'));
  expect(script.startedAt).toBeGreaterThanOrEqual(before);
  expect(script.startedAt).toBeLessThanOrEqual(Date.now());
  await script.done;
  await sleep(0);
});

describe('limits', () => {
  it('kills a script writing past fileBytes with SIGXFSZ and names the limit', async () => {
    const runner = runnerWith({ limits: { memoryMb: 0, processes: 0, fileBytes: 4096, cpuSeconds: 0 } });
    const result = await runner.run(request('bigfile.sh', { args: ['100000'] }));
    expect(result).toMatchObject({ exit_code: null, signal: 'SIGXFSZ', limit_exceeded: 'file_bytes' });
    const free = await runnerWith().run(request('bigfile.sh', { args: ['100000'] }));
    expect(free).toMatchObject({ exit_code: 0, stdout: 'wrote\n' });
    expect(free.limit_exceeded).toBeUndefined();
  });
});

describe('progress', () => {
  it('reports elapsed time and the last line about once a second while the script runs, never after', async () => {
    const seen: RunProgress[] = [];
    const result = await runnerWith().run(
      request('ticks.py', { args: ['8'], onProgress: (progress) => seen.push(progress) }),
    );
    expect(result.stdout).toContain('done');
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen[0]?.elapsedMs).toBeGreaterThanOrEqual(900);
    expect(seen[0]?.lastLine).toMatch(/^tick \d$/);
    const count = seen.length;
    await sleep(1200);
    expect(seen).toHaveLength(count);
  });

  it('survives an observer that throws', async () => {
    const result = await runnerWith().run(
      request('ticks.py', {
        args: ['6'],
        onProgress: () => {
          throw new Error('observer failed');
        },
      }),
    );
    expect(result).toMatchObject({ exit_code: 0 });
  });
});

// CI installs bubblewrap (.ci/run); these run the same fixtures inside it.
describe('in the sandbox', () => {
  const sandboxed = async (overrides: Parameters<typeof runnerOptions>[0] = {}): Promise<ScriptRunner> =>
    runnerWith({ sandbox: await probeSandbox({ mode: 'bwrap' }), ...overrides });

  it('runs scripts as nobody in the skill folder, with a private /tmp as HOME, seeing only its own processes', async () => {
    const runner = await sandboxed();
    expect(await runner.ready()).toMatchObject({ sandbox: 'bwrap', requested: 'bwrap', network: false });
    const result = await runner.run(request('where.sh', { executable: true }));
    expect(result.stdout).toBe(
      `uid 65534\ncwd ${FIXTURES.slice(0, -1)}\nhome /tmp\ntmp writable\npids ${/pids (\d)/.exec(result.stdout)?.[1]}\n`,
    );
    expect(Number(/pids (\d+)/.exec(result.stdout)?.[1])).toBeLessThanOrEqual(6);
  });

  it('gives the same results as without it: argv, stdin, shebang, exit codes', async () => {
    const runner = await sandboxed();
    expect((await runner.run(request('args.py', { args: ['a b', '$(id)'] }))).stdout).toBe(
      '["a b", "$(id)"]\n',
    );
    expect((await runner.run(request('stdin.sh', { stdin: 'hello' }))).stdout).toBe('got:hello\n');
    expect(await runner.run(request('shebang-tool', { executable: true, args: ['x'] }))).toMatchObject({
      exit_code: 0,
      stdout: 'shebang ran with 1 args: x\n',
    });
    expect(await runner.run(request('fail.sh'))).toMatchObject({ exit_code: 3, stderr: 'something broke\n' });
  });

  it('sets PATH to the system directories and HOME to /tmp, and adds nothing else', async () => {
    const runner = await sandboxed({
      envPassthrough: ['PATH', 'HOME', 'LANG'],
      sourceEnv: { PATH: '/root/x', LANG: 'C' },
    });
    const seen = JSON.parse((await runner.run(request('env.js'))).stdout) as { env: Record<string, string> };
    expect(seen.env).toEqual({
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: '/tmp',
      LANG: 'C',
      SKILL_NAME: 'fixture-skill',
      SKILL_DIR: FIXTURES,
    });
  });

  it('gives the script the grace period on timeout: SIGTERM first, SIGKILL for one that ignores it', async () => {
    const runner = await sandboxed({ killGraceMs: 300 });
    expect(await runner.run(request('wait.sh', { timeoutSeconds: 0.5 }))).toMatchObject({
      timed_out: true,
      signal: 'SIGTERM',
    });
    expect(await runner.run(request('ignore-term.sh', { timeoutSeconds: 0.5 }))).toMatchObject({
      timed_out: true,
      signal: 'SIGKILL',
    });
  });

  it('refuses an interpreter the sandbox cannot see, naming it', async () => {
    const runner = await sandboxed({ interpreters: { '.py': [join(FIXTURES, 'shebang-tool')] } });
    const error = await runner.run(request('args.py')).catch((e: unknown) => e);
    expect((error as RunnerError).code).toBe('RUNNER_SPAWN_FAILED');
    expect((error as RunnerError).message).toContain('sandbox');
  });
});
