import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createScriptRunner,
  RunnerError,
  type RunnerOptions,
  type RunRequest,
  type ScriptRunner,
} from '@skillgate/runner';
import {
  createMemoryJobStore,
  createRedisJobStore,
  type JobEnd,
  type JobStore,
  type JobStoreOptions,
  StateError,
} from '@skillgate/state';
import { type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createJobRegistry } from '../src/createJobRegistry.js';
import type { JobRegistry } from '../src/jobTypes.js';
import { connections, freshPrefix } from './helpers/redisReplicas.js';

const SKILL_DIR = fileURLToPath(new URL('./fixtures/job-skill/', import.meta.url));

const runnerOptions = (overrides: Partial<RunnerOptions> = {}): RunnerOptions => ({
  interpreters: { '.py': ['python3'], '.sh': ['bash'], '.js': ['node'] },
  envPassthrough: ['PATH', 'HOME', 'LANG'],
  defaultTimeoutSeconds: 10,
  maxTimeoutSeconds: 20,
  maxOutputBytes: 64 * 1024,
  defaultTailLines: 200,
  maxConcurrent: 8,
  maxConcurrentPerPrincipal: 8,
  maxQueue: 8,
  queueTimeoutMs: 5000,
  maxStdinBytes: 1024,
  killGraceMs: 300,
  ...overrides,
});

const request = (script: string, overrides: Partial<RunRequest> = {}): RunRequest => ({
  skillName: 'job-skill',
  skillDir: SKILL_DIR,
  scriptPath: join(SKILL_DIR, script),
  executable: false,
  principal: 'alice',
  ...overrides,
});

/** Whether a process still exists; a zombie nobody reaped counts as gone. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

const printedPid = (text: string): number => Number(/pid (\d+)/.exec(text)?.[1] ?? Number.NaN);

let redis: RedisServer;
const ends: JobEnd[] = [];
let pool: ReturnType<typeof connections>;
const cleanups: (() => Promise<void>)[] = [];
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await pool.closeAll();
});
afterAll(async () => redis.close());

// The same registry code over both stores.
for (const kind of ['memory', 'redis'] as const) {
  async function setup(
    storeOptions: Partial<JobStoreOptions> = {},
    runner: Partial<RunnerOptions> = {},
  ): Promise<{ jobs: JobRegistry; runner: ScriptRunner; store: JobStore }> {
    const options = { ttlMs: 60_000, maxRunningPerOwner: 4, maxOutputBytes: 65_536, ...storeOptions };
    const store =
      kind === 'memory'
        ? createMemoryJobStore(options)
        : createRedisJobStore({ connection: await pool.open(freshPrefix()), ...options });
    const scripts = createScriptRunner(runnerOptions(runner));
    ends.splice(0);
    const jobs = createJobRegistry({
      runner: scripts,
      store,
      defaultTailLines: 200,
      mirrorIntervalMs: 50,
      onEnd: (end) => ends.push(end),
    });
    cleanups.push(async () => {
      await jobs.close();
      await scripts.close();
      await store.close();
    });
    return { jobs, runner: scripts, store };
  }

  const stateOf = async (jobs: JobRegistry, owner: string, id: string) =>
    (await jobs.status(owner, id)).state;
  const finished = (jobs: JobRegistry, owner: string, id: string) =>
    waitFor(async () => (await stateOf(jobs, owner, id)) !== 'running', { what: 'the job to end' });
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'returned',
      (error: unknown) => (error instanceof StateError || error instanceof RunnerError ? error.code : error),
    );

  describe(`job registry (${kind} store)`, () => {
    it('returns an unguessable base64url job id of 128 bits', async () => {
      const { jobs } = await setup();
      const ids = new Set<string>();
      for (let i = 0; i < 3; i++) ids.add((await jobs.start('s1', request('args.py'))).job_id);
      expect(ids.size).toBe(3);
      for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    });

    it('shows live output while the job runs, then the final state and every kept line after exit', async () => {
      const { jobs } = await setup();
      const { job_id } = await jobs.start('s1', request('quick.js', { args: ['job'], tailLines: 1 }));
      // One snapshot: the status that shows the first line alone is the status of a running job.
      let live: Awaited<ReturnType<JobRegistry['status']>> | undefined;
      await waitFor(
        async () => {
          live = await jobs.status('s1', job_id);
          return live.stdout === 'first job\n';
        },
        { what: 'the first line' },
      );
      expect(live).toMatchObject({
        job_id,
        state: 'running',
        skill: 'job-skill',
        script: 'quick.js',
        exit_code: null,
      });
      await finished(jobs, 's1', job_id);
      // The run's own tail (1 line) does not cut what the job keeps.
      expect(await jobs.status('s1', job_id)).toMatchObject({
        state: 'exited',
        exit_code: 0,
        signal: null,
        stdout: 'first job\nsecond\n',
        stdout_truncated: false,
        stdout_bytes: 17,
      });
      expect(await jobs.status('s1', job_id, 1)).toMatchObject({
        stdout: 'second\n',
        stdout_truncated: true,
      });
    });

    it('reports a non-zero exit as exited with its exit code, and a timeout as timed_out', async () => {
      const { jobs } = await setup();
      const failing = await jobs.start('s1', request('fail.sh'));
      const slow = await jobs.start('s1', request('wait.sh', { timeoutSeconds: 0.3 }));
      await finished(jobs, 's1', failing.job_id);
      await finished(jobs, 's1', slow.job_id);
      expect(await jobs.status('s1', failing.job_id)).toMatchObject({
        state: 'exited',
        exit_code: 3,
        stderr: 'something broke\n',
      });
      expect(await jobs.status('s1', slow.job_id)).toMatchObject({ state: 'timed_out', signal: 'SIGTERM' });
      // Each end is reported once, on the replica that ran the job.
      expect(
        ends
          .splice(0)
          .map((end) => [end.state, end.exitCode])
          .sort(),
      ).toEqual([
        ['exited', 3],
        ['timed_out', null],
      ]);
    });

    it('cancels a running job and kills its process group', async () => {
      const { jobs, runner } = await setup();
      const { job_id } = await jobs.start('s1', request('wait.sh'));
      await waitFor(async () => (await jobs.status('s1', job_id)).stderr.includes('pid'), {
        what: 'its pid',
      });
      const pid = printedPid((await jobs.status('s1', job_id)).stderr);
      const asked = await jobs.cancel('s1', job_id);
      expect(asked.state === 'cancelled' || asked.cancel_requested === true).toBe(true);
      await waitFor(() => !isAlive(pid), { what: 'the script to be gone' });
      await finished(jobs, 's1', job_id);
      expect(await jobs.status('s1', job_id)).toMatchObject({ state: 'cancelled', signal: 'SIGTERM' });
      await waitFor(() => runner.active === 0 && jobs.localRunning === 0, { what: 'the slot to be free' });
    });

    it('leaves a finished job as it was when cancelled', async () => {
      const { jobs } = await setup();
      const { job_id } = await jobs.start('s1', request('args.py'));
      await finished(jobs, 's1', job_id);
      expect(await jobs.cancel('s1', job_id)).toMatchObject({ state: 'exited', exit_code: 0 });
    });

    it('answers JOB_NOT_FOUND for a job of another owner, exactly as for an unknown id', async () => {
      const { jobs } = await setup();
      const { job_id } = await jobs.start('s1', request('wait.sh'));
      expect(await codeOf(jobs.status('s2', job_id))).toBe('JOB_NOT_FOUND');
      expect(await codeOf(jobs.cancel('s2', job_id))).toBe('JOB_NOT_FOUND');
      expect(await codeOf(jobs.status('s1', 'no-such-job'))).toBe('JOB_NOT_FOUND');
      expect(await stateOf(jobs, 's1', job_id)).toBe('running');
    });

    it('refuses more running jobs than the cap with JOB_LIMIT, per owner, and counts running jobs', async () => {
      const { jobs } = await setup({ maxRunningPerOwner: 2 });
      const first = await jobs.start('s1', request('wait.sh'));
      await jobs.start('s1', request('wait.sh'));
      expect(await codeOf(jobs.start('s1', request('args.py')))).toBe('JOB_LIMIT');
      await jobs.start('s2', request('wait.sh'));
      expect(await jobs.countRunning()).toBe(3);
      expect(jobs.localRunning).toBe(3);
      await jobs.cancel('s1', first.job_id);
      await finished(jobs, 's1', first.job_id);
      expect((await jobs.start('s1', request('args.py'))).job_id).toBeTypeOf('string');
    });

    it('forgets finished jobs after the ttl and keeps a running job past it', async () => {
      const { jobs } = await setup({ ttlMs: 300 });
      const done = await jobs.start('s1', request('args.py'));
      const running = await jobs.start('s1', request('wait.sh'));
      // Only a finished job expires; waiting for it to finish first would race the 300 ms ttl.
      await waitFor(async () => (await codeOf(jobs.status('s1', done.job_id))) === 'JOB_NOT_FOUND', {
        what: 'the finished job to expire',
      });
      expect(await stateOf(jobs, 's1', running.job_id)).toBe('running');
    });

    it('records a spawn failure as a failed job with its reason', async () => {
      const { jobs } = await setup({}, { interpreters: { '.py': ['skillgate-no-such-interpreter'] } });
      const { job_id } = await jobs.start('s1', request('args.py'));
      const status = await jobs.status('s1', job_id);
      expect(status).toMatchObject({ state: 'failed', exit_code: null, stdout: '' });
      expect(status.error).toContain('skillgate-no-such-interpreter');
      expect(await jobs.countRunning()).toBe(0);
    });

    it('rejects a job that cannot be started at all, and frees its slot', async () => {
      const { jobs } = await setup({ maxRunningPerOwner: 1 });
      expect(await codeOf(jobs.start('s1', request('quick.js', { stdin: 'x'.repeat(4096) })))).toBe(
        'RUNNER_INPUT_TOO_LARGE',
      );
      expect(await jobs.countRunning()).toBe(0);
      expect((await jobs.start('s1', request('args.py'))).job_id).toBeTypeOf('string');
    });

    it('dropOwner stops the running jobs of that owner and forgets them', async () => {
      const { jobs } = await setup();
      const { job_id } = await jobs.start('s1', request('wait.sh'));
      const other = await jobs.start('s2', request('wait.sh'));
      await waitFor(async () => (await jobs.status('s1', job_id)).stderr.includes('pid'), {
        what: 'its pid',
      });
      const pid = printedPid((await jobs.status('s1', job_id)).stderr);
      jobs.dropOwner('s1');
      await waitFor(async () => (await codeOf(jobs.status('s1', job_id))) === 'JOB_NOT_FOUND', {
        what: 'the job to be forgotten',
      });
      await waitFor(() => !isAlive(pid), { what: 'the script to be gone' });
      await waitFor(() => jobs.localRunning === 1, { what: 'one job left here' });
      expect(await stateOf(jobs, 's2', other.job_id)).toBe('running');
    });

    it('close() kills running jobs, records their end, and refuses new ones', async () => {
      const { jobs, runner, store } = await setup();
      const { job_id } = await jobs.start('s1', request('wait.sh'));
      await waitFor(async () => (await jobs.status('s1', job_id)).stderr.includes('pid'), {
        what: 'its pid',
      });
      const pid = printedPid((await jobs.status('s1', job_id)).stderr);
      await jobs.close();
      expect(isAlive(pid)).toBe(false);
      expect(runner.active).toBe(0);
      expect((await store.get('s1', job_id))?.state).toBe('cancelled');
      expect(await codeOf(jobs.start('s1', request('args.py')))).toBe('STATE_CLOSED');
    });
  });
}
