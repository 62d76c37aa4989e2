import { type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryJobStore } from '../src/jobs/createMemoryJobStore.js';
import { createRedisJobStore } from '../src/jobs/createRedisJobStore.js';
import type { JobOutput, JobStore } from '../src/jobs/types.js';
import { connections, freshPrefix } from './helpers/redisReplicas.js';

const output = (stdout: string, stderr = ''): JobOutput => ({
  stdout,
  stderr,
  stdout_truncated: false,
  stderr_truncated: false,
  stdout_bytes: Buffer.byteLength(stdout),
  stderr_bytes: Buffer.byteLength(stderr),
});

const job = (id: string, owner = 'session-1') => ({
  id,
  owner,
  skill: 'pdf',
  script: 'scripts/extract.py',
  startedAt: Date.now(),
});

const baseOptions = { ttlMs: 60_000, maxRunningPerOwner: 2, maxOutputBytes: 1024 };

let redis: RedisServer;
let pool: ReturnType<typeof connections>;
const stores: JobStore[] = [];
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await pool.closeAll();
});
afterAll(async () => redis.close());

/** A Redis job store standing for one replica. */
async function replica(prefix: string, extra: Partial<Parameters<typeof createRedisJobStore>[0]> = {}) {
  const store = createRedisJobStore({ connection: await pool.open(prefix), ...baseOptions, ...extra });
  stores.push(store);
  return store;
}

// The same single-replica contract for both implementations.
for (const kind of ['memory', 'redis'] as const) {
  const open = async (): Promise<JobStore> => {
    if (kind === 'redis') return replica(freshPrefix());
    const store = createMemoryJobStore(baseOptions);
    stores.push(store);
    return store;
  };

  describe(`${kind} job store`, () => {
    it('records a job from start through progress to its end, for its owner only', async () => {
      const store = await open();
      await store.start(job('j1'));
      let record = await store.get('session-1', 'j1');
      expect(record).toMatchObject({
        state: 'running',
        exitCode: null,
        replica: store.replica,
        cancelRequested: false,
      });
      expect(await store.progress('j1', output('a\nb\nc\n'))).toEqual({ cancelRequested: false });
      // The output as kept; a status read cuts it to its last lines (packages/jobs, lastLinesOf).
      record = await store.get('session-1', 'j1');
      expect(record?.output).toMatchObject({ stdout: 'a\nb\nc\n', stdout_truncated: false, stdout_bytes: 6 });
      await store.finish('j1', {
        state: 'exited',
        exitCode: 3,
        signal: null,
        durationMs: 42,
        output: output('a\nb\nc\nd\n', 'warn'),
      });
      record = await store.get('session-1', 'j1');
      expect(record).toMatchObject({ state: 'exited', exitCode: 3, signal: null, durationMs: 42 });
      expect(record?.output.stdout).toBe('a\nb\nc\nd\n');
      expect(record?.output.stderr).toBe('warn');
      expect(record?.endedAt).toBeTypeOf('number');
      expect(await store.get('session-2', 'j1')).toBeUndefined();
      expect(await store.get('session-1', 'nope')).toBeUndefined();
    });

    it('keeps only the configured tail of each stream, marked truncated', async () => {
      const store = await open();
      await store.start(job('big'));
      await store.progress('big', output(`${'x'.repeat(5000)}END`));
      const record = await store.get('session-1', 'big');
      expect(Buffer.byteLength(record?.output.stdout ?? '')).toBe(1024);
      expect(record?.output.stdout.endsWith('END')).toBe(true);
      expect(record?.output).toMatchObject({ stdout_truncated: true, stdout_bytes: 5003 });
    });

    it('refuses a third running job of one owner and frees the slot when one ends', async () => {
      const store = await open();
      await store.start(job('r1'));
      await store.start(job('r2'));
      await expect(store.start(job('r3'))).rejects.toMatchObject({ code: 'JOB_LIMIT' });
      await store.start(job('other', 'session-2'));
      await store.finish('r1', {
        state: 'exited',
        exitCode: 0,
        signal: null,
        durationMs: 1,
        output: output(''),
      });
      await store.start(job('r3'));
    });

    it('flags a cancel, tells the running replica, and forgets an owner with its jobs', async () => {
      const store = await open();
      const cancelled: string[] = [];
      store.onCancel((id) => cancelled.push(id));
      await store.start(job('c1'));
      expect(await store.cancel('session-2', 'c1')).toBeUndefined();
      expect((await store.cancel('session-1', 'c1'))?.cancelRequested).toBe(true);
      await waitFor(() => cancelled.length === 1, { what: 'the cancel' });
      expect(await store.progress('c1')).toEqual({ cancelRequested: true });
      await store.start(job('c2'));
      await store.dropOwner('session-1');
      await waitFor(() => cancelled.includes('c2'), { what: 'the cancel of a dropped job' });
      expect(await store.get('session-1', 'c2')).toBeUndefined();
    });

    it('lists the newest running jobs first, at most the limit, leaving ended ones and output out', async () => {
      const store = await open();
      const t = Date.now();
      for (const [i, id] of ['n1', 'n2', 'n3'].entries()) {
        await store.start({ ...job(id, `owner-${id}`), startedAt: t + i });
      }
      await store.progress('n2', output('secret output'));
      await store.finish('n3', {
        state: 'exited',
        exitCode: 0,
        signal: null,
        durationMs: 1,
        output: output(''),
      });
      const newest = await store.newestRunning(10);
      expect(newest.map((j) => j.id)).toEqual(['n2', 'n1']);
      expect(newest[0]).toMatchObject({ owner: 'owner-n2', skill: 'pdf', state: 'running' });
      expect(newest[0]?.output.stdout).toBe('');
      expect((await store.newestRunning(1)).map((j) => j.id)).toEqual(['n2']);
      expect(await store.newestRunning(0)).toEqual([]);
    });
  });
}

describe('redis job store across replicas', () => {
  it('shows live output of a job running on another replica, and its end', async () => {
    const prefix = freshPrefix();
    const runner = await replica(prefix);
    const reader = await replica(prefix);
    await runner.start(job('live'));
    await runner.progress('live', output('tick 1\n'));
    expect((await reader.get('session-1', 'live'))?.output.stdout).toBe('tick 1\n');
    await runner.progress('live', output('tick 1\ntick 2\n'));
    const seen = await reader.get('session-1', 'live');
    expect(seen).toMatchObject({ state: 'running', replica: runner.replica });
    expect(seen?.output.stdout).toBe('tick 1\ntick 2\n');
    await runner.finish('live', {
      state: 'timed_out',
      exitCode: null,
      signal: 'SIGTERM',
      durationMs: 9,
      output: output(''),
    });
    expect(await reader.get('session-1', 'live')).toMatchObject({ state: 'timed_out', signal: 'SIGTERM' });
  });

  it('delivers a cancel asked on one replica to the replica running the job only', async () => {
    const prefix = freshPrefix();
    const runner = await replica(prefix);
    const asker = await replica(prefix);
    const atRunner: string[] = [];
    const atAsker: string[] = [];
    runner.onCancel((id) => atRunner.push(id));
    asker.onCancel((id) => atAsker.push(id));
    await runner.start(job('far'));
    const record = await asker.cancel('session-1', 'far');
    expect(record).toMatchObject({ state: 'running', cancelRequested: true });
    await waitFor(() => atRunner.length === 1, { what: 'the cancel on the running replica' });
    expect(atRunner).toEqual(['far']);
    expect(atAsker).toEqual([]);
  });

  it('keeps a running job between two reports as long as its replica beats, however short jobs.ttl is', async () => {
    // jobs.ttl is how long a finished job is kept. A running job's keys expired with it too, so with a short
    // ttl (or reports held up by a busy event loop) a job still running answered JOB_NOT_FOUND.
    const prefix = freshPrefix();
    const connection = await pool.open(prefix);
    const store = createRedisJobStore({ connection, ...baseOptions, ttlMs: 300, heartbeatTtlMs: 6000 });
    stores.push(store);
    await store.start(job('slow'));
    const ttlOf = (key: string) => connection.run((c) => c.pttl(key));
    expect(await ttlOf(connection.key('job', 'slow'))).toBeGreaterThan(5000);
    expect(await ttlOf(connection.key('jobs', 'session-1'))).toBeGreaterThan(5000);
    await store.progress('slow', output('tick\n'));
    expect(await ttlOf(connection.key('job', 'slow'))).toBeGreaterThan(5000);
    // Ended, it is kept for the ttl.
    await store.finish('slow', {
      state: 'exited',
      exitCode: 0,
      signal: null,
      durationMs: 1,
      output: output(''),
    });
    expect(await ttlOf(connection.key('job', 'slow'))).toBeLessThanOrEqual(300);
  });

  it('holds the running-jobs cap of an owner across replicas', async () => {
    const prefix = freshPrefix();
    const one = await replica(prefix);
    const two = await replica(prefix);
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? one : two).start(job(`cap${i}`, 'principal:a')).then(
          () => 'ok',
          (e: { code?: string }) => e.code,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok').length).toBe(2);
    expect(outcomes.filter((o) => o === 'JOB_LIMIT').length).toBe(6);
  });

  it('reports a job lost, with a reason, once the replica running it stops beating', async () => {
    const prefix = freshPrefix();
    const timings = { heartbeatMs: 100, heartbeatTtlMs: 300 };
    const doomedConnection = await pool.open(prefix);
    const doomed = createRedisJobStore({ connection: doomedConnection, ...baseOptions, ...timings });
    const survivor = await replica(prefix, timings);
    await doomed.start(job('orphan'));
    await doomed.progress('orphan', output('half way\n'));
    expect((await survivor.get('session-1', 'orphan'))?.state).toBe('running');
    // A crash: the connection drops and the heartbeat stops, nobody cleans up.
    await doomedConnection.close();
    await waitFor(async () => (await survivor.get('session-1', 'orphan'))?.state === 'lost', {
      what: 'the job to be reported lost',
    });
    const lost = await survivor.get('session-1', 'orphan');
    expect(lost?.error).toMatch(/stopped answering/);
    expect(lost?.output.stdout).toBe('half way\n');
    expect(lost?.endedAt).toBeTypeOf('number');
    // A lost job no longer holds one of its owner's running slots.
    await survivor.start(job('n1'));
    await survivor.start(job('n2'));
    await doomed.close();
  });

  it('counts running jobs across replicas, leaving out ended jobs and those of dead replicas', async () => {
    const prefix = freshPrefix();
    const one = await replica(prefix);
    const two = await replica(prefix);
    await one.start(job('c1', 'principal:a'));
    await one.start(job('c2', 'principal:b'));
    await two.start(job('c3', 'principal:c'));
    expect(await one.countRunning()).toBe(3);
    await two.finish('c3', { state: 'exited', exitCode: 0, signal: null, durationMs: 5, output: output('') });
    expect(await two.countRunning()).toBe(2);
    await one.close();
    // The count marks the dead replica's jobs lost, as a read of them would.
    expect(await two.countRunning()).toBe(0);
    expect(await two.get('principal:a', 'c1')).toMatchObject({ state: 'lost' });
  });

  it('reports the jobs of a replica that shut down lost at once', async () => {
    const prefix = freshPrefix();
    const leaving = await replica(prefix);
    const staying = await replica(prefix);
    await leaving.start(job('left'));
    await leaving.close();
    expect(await staying.get('session-1', 'left')).toMatchObject({ state: 'lost' });
  });
});
