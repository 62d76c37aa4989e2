import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createJobRegistry,
  createScriptRunner,
  type JobRegistry,
  type JobRegistryOptions,
  RunnerError,
  type RunnerErrorCode,
  type RunnerOptions,
  type ScriptRunner,
} from '../src/index.js';
import { printedPid, request, runnerOptions, until, waitGone } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function setup(
  jobOptions: Partial<JobRegistryOptions> = {},
  runner: Partial<RunnerOptions> = {},
): { jobs: JobRegistry; runner: ScriptRunner } {
  const scripts = createScriptRunner(runnerOptions(runner));
  const jobs = createJobRegistry(scripts, { ttlSeconds: 60, maxPerOwner: 4, ...jobOptions });
  cleanups.push(async () => {
    await jobs.close();
    await scripts.close();
  });
  return { jobs, runner: scripts };
}

function codeOf(action: () => unknown): RunnerErrorCode | 'returned' {
  try {
    action();
    return 'returned';
  } catch (error) {
    if (error instanceof RunnerError) return error.code;
    throw error;
  }
}

async function finished(jobs: JobRegistry, owner: string, jobId: string): Promise<void> {
  await until(() => jobs.status(owner, jobId).state !== 'running');
}

describe('job registry', () => {
  it('returns an unguessable base64url job id of 128 bits', async () => {
    const { jobs } = setup();
    const ids = new Set<string>();
    for (let i = 0; i < 3; i++) ids.add((await jobs.start('s1', request('args.py'))).job_id);
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('shows live output while the job runs, then the final state after exit', async () => {
    const { jobs } = setup();
    const { job_id } = await jobs.start('s1', request('quick.js', { args: ['job'] }));
    await until(() => jobs.status('s1', job_id).stdout === 'first job\n');
    expect(jobs.status('s1', job_id)).toMatchObject({
      job_id,
      state: 'running',
      skill: 'fixture-skill',
      script: 'quick.js',
      exit_code: null,
    });
    await finished(jobs, 's1', job_id);
    expect(jobs.status('s1', job_id)).toMatchObject({
      state: 'exited',
      exit_code: 0,
      signal: null,
      stdout: 'first job\nsecond\n',
      stdout_truncated: false,
      stdout_bytes: 17,
    });
    expect(jobs.status('s1', job_id, 1)).toMatchObject({ stdout: 'second\n', stdout_truncated: true });
  });

  it('reports a non-zero exit as exited with its exit code', async () => {
    const { jobs } = setup();
    const { job_id } = await jobs.start('s1', request('fail.sh'));
    await finished(jobs, 's1', job_id);
    expect(jobs.status('s1', job_id)).toMatchObject({
      state: 'exited',
      exit_code: 3,
      stderr: 'something broke\n',
    });
  });

  it('reports a timed out job as timed_out', async () => {
    const { jobs } = setup();
    const { job_id } = await jobs.start('s1', request('wait.sh', { timeoutSeconds: 0.3 }));
    await finished(jobs, 's1', job_id);
    expect(jobs.status('s1', job_id)).toMatchObject({ state: 'timed_out', signal: 'SIGTERM' });
  });

  it('cancels a running job and kills its process group', async () => {
    const { jobs, runner } = setup();
    const { job_id } = await jobs.start('s1', request('wait.sh'));
    await until(() => jobs.status('s1', job_id).stderr.includes('pid'));
    const pid = printedPid(jobs.status('s1', job_id).stderr, 'pid');
    expect(jobs.cancel('s1', job_id).state).toBe('cancelled');
    expect(await waitGone(pid)).toBe(true);
    await until(() => jobs.status('s1', job_id).signal !== null);
    expect(jobs.status('s1', job_id)).toMatchObject({ state: 'cancelled', signal: 'SIGTERM' });
    await until(() => runner.active === 0);
  });

  it('leaves a finished job as it was when cancelled', async () => {
    const { jobs } = setup();
    const { job_id } = await jobs.start('s1', request('args.py'));
    await finished(jobs, 's1', job_id);
    expect(jobs.cancel('s1', job_id)).toMatchObject({ state: 'exited', exit_code: 0 });
  });

  it('answers JOB_NOT_FOUND for a job of another owner, exactly as for an unknown id', async () => {
    const { jobs } = setup();
    const { job_id } = await jobs.start('s1', request('wait.sh'));
    expect(codeOf(() => jobs.status('s2', job_id))).toBe('JOB_NOT_FOUND');
    expect(codeOf(() => jobs.cancel('s2', job_id))).toBe('JOB_NOT_FOUND');
    expect(codeOf(() => jobs.status('s1', 'no-such-job'))).toBe('JOB_NOT_FOUND');
    expect(jobs.status('s1', job_id).state).toBe('running');
  });

  it('refuses more than maxPerOwner running jobs with JOB_LIMIT, per owner', async () => {
    const { jobs } = setup({ maxPerOwner: 2 });
    const first = await jobs.start('s1', request('wait.sh'));
    await jobs.start('s1', request('wait.sh'));
    const error = await jobs.start('s1', request('args.py')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect((error as RunnerError).code).toBe('JOB_LIMIT');
    const other = await jobs.start('s2', request('args.py'));
    expect(other.job_id).toBeTypeOf('string');
    jobs.cancel('s1', first.job_id);
    await finished(jobs, 's1', first.job_id);
    await until(() => jobs.status('s1', first.job_id).signal !== null);
    expect((await jobs.start('s1', request('args.py'))).job_id).toBeTypeOf('string');
  });

  it('forgets finished jobs ttlSeconds after they end', async () => {
    const { jobs } = setup({ ttlSeconds: 0.2 });
    const { job_id } = await jobs.start('s1', request('args.py'));
    await until(() => jobs.status('s1', job_id).exit_code !== null);
    expect(jobs.size).toBe(1);
    await sleep(300);
    expect(codeOf(() => jobs.status('s1', job_id))).toBe('JOB_NOT_FOUND');
    expect(jobs.size).toBe(0);
  });

  it('keeps a running job past the ttl', async () => {
    const { jobs } = setup({ ttlSeconds: 0.1 });
    const { job_id } = await jobs.start('s1', request('wait.sh'));
    await sleep(250);
    expect(jobs.status('s1', job_id).state).toBe('running');
  });

  it('caps the finished jobs kept per owner, dropping the oldest', async () => {
    const { jobs } = setup({ maxPerOwner: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const { job_id } = await jobs.start('s1', request('args.py', { args: [String(i)] }));
      await until(() => jobs.status('s1', job_id).exit_code !== null);
      ids.push(job_id);
    }
    expect(jobs.size).toBe(4);
    expect(codeOf(() => jobs.status('s1', ids[0] ?? ''))).toBe('JOB_NOT_FOUND');
    expect(codeOf(() => jobs.status('s1', ids[1] ?? ''))).toBe('JOB_NOT_FOUND');
    expect(jobs.status('s1', ids[5] ?? '').stdout).toBe('["5"]\n');
  });

  it('records a spawn failure as a failed job with its reason', async () => {
    const { jobs } = setup({}, { interpreters: { '.py': ['skillgate-no-such-interpreter'] } });
    const { job_id } = await jobs.start('s1', request('args.py'));
    const status = jobs.status('s1', job_id);
    expect(status).toMatchObject({ state: 'failed', exit_code: null, stdout: '' });
    expect(status.error).toContain('skillgate-no-such-interpreter');
  });

  it('rejects a job that cannot be started at all, without keeping it', async () => {
    const { jobs } = setup();
    const error = await jobs.start('s1', request('shebang-tool')).catch((e: unknown) => e);
    expect((error as RunnerError).code).toBe('RUNNER_NO_INTERPRETER');
    expect(jobs.size).toBe(0);
  });

  it('dropOwner cancels the running jobs of that owner and forgets them', async () => {
    const { jobs, runner } = setup();
    const { job_id } = await jobs.start('s1', request('wait.sh'));
    const other = await jobs.start('s2', request('wait.sh'));
    await until(() => jobs.status('s1', job_id).stderr.includes('pid'));
    const pid = printedPid(jobs.status('s1', job_id).stderr, 'pid');
    jobs.dropOwner('s1');
    expect(codeOf(() => jobs.status('s1', job_id))).toBe('JOB_NOT_FOUND');
    expect(await waitGone(pid)).toBe(true);
    await until(() => runner.active === 1);
    expect(jobs.status('s2', other.job_id).state).toBe('running');
  });

  it('close() kills running jobs and refuses new ones', async () => {
    const { jobs, runner } = setup();
    const { job_id } = await jobs.start('s1', request('wait.sh'));
    await until(() => jobs.status('s1', job_id).stderr.includes('pid'));
    const pid = printedPid(jobs.status('s1', job_id).stderr, 'pid');
    await jobs.close();
    expect(await waitGone(pid, 100)).toBe(true);
    expect(runner.active).toBe(0);
    expect(jobs.size).toBe(0);
    const error = await jobs.start('s1', request('args.py')).catch((e: unknown) => e);
    expect((error as RunnerError).code).toBe('RUNNER_CLOSED');
  });
});
