import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScriptRunner, type ScriptRunner } from '@skillgate/runner';
import { createRedisJobStore, type JobStore } from '@skillgate/state';
import { type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lastLinesOf } from '../src/lastLinesOf.js';
import { mirrorJob } from '../src/mirrorJob.js';
import { connections, freshPrefix } from './helpers/redisReplicas.js';

let redis: RedisServer;
let pool: ReturnType<typeof connections>;
let dir: string;
let runner: ScriptRunner;
const stores: JobStore[] = [];

beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
  dir = await mkdtemp(join(tmpdir(), 'skillgate-mirror-'));
  await writeFile(join(dir, 'ticks.sh'), 'for i in $(seq 1 "$1"); do echo "tick $i"; sleep 0.05; done\n');
  await chmod(join(dir, 'ticks.sh'), 0o755);
  runner = createScriptRunner({
    interpreters: { '.sh': ['bash'] },
    envPassthrough: ['PATH'],
    defaultTimeoutSeconds: 30,
    maxTimeoutSeconds: 60,
    maxOutputBytes: 65_536,
    defaultTailLines: 200,
    maxConcurrent: 4,
    maxConcurrentPerPrincipal: 4,
    maxQueue: 0,
    queueTimeoutMs: 1000,
    maxStdinBytes: 1024,
    killGraceMs: 500,
  });
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await pool.closeAll();
});
afterAll(async () => {
  await runner.close();
  await redis.close();
  await rm(dir, { recursive: true, force: true });
});

async function replica(prefix: string): Promise<JobStore> {
  const store = createRedisJobStore({
    connection: await pool.open(prefix),
    ttlMs: 60_000,
    maxRunningPerOwner: 4,
    maxOutputBytes: 4096,
  });
  stores.push(store);
  return store;
}

const start = (args: string[]) =>
  runner.start({
    skillName: 'ticks',
    skillDir: dir,
    scriptPath: join(dir, 'ticks.sh'),
    executable: true,
    args,
    principal: 'agent-a',
  });

describe('mirrorJob', () => {
  it('shows a real script’s output on another replica while it runs, then its exit', async () => {
    const prefix = freshPrefix();
    const here = await replica(prefix);
    const there = await replica(prefix);
    await here.start({ id: 'ticks', owner: 's1', skill: 'ticks', script: 'ticks.sh', startedAt: Date.now() });
    const mirrored = mirrorJob(here, 'ticks', await start(['40']), { intervalMs: 50 });
    await waitFor(async () => (await there.get('s1', 'ticks'))?.output.stdout.includes('tick 3') ?? false, {
      what: 'live output on the other replica',
    });
    expect((await there.get('s1', 'ticks'))?.state).toBe('running');
    await mirrored;
    const done = await there.get('s1', 'ticks');
    expect(done).toMatchObject({ state: 'exited', exitCode: 0 });
    // Its last two lines, as a status read with tail 2 gives them.
    expect(done === undefined ? undefined : lastLinesOf(done.output, 2).stdout).toBe('tick 39\ntick 40\n');
  });

  it('stops a real script when the cancel is asked on another replica', async () => {
    const prefix = freshPrefix();
    const here = await replica(prefix);
    const there = await replica(prefix);
    await here.start({ id: 'long', owner: 's1', skill: 'ticks', script: 'ticks.sh', startedAt: Date.now() });
    const mirrored = mirrorJob(here, 'long', await start(['100000']), { intervalMs: 50 });
    await waitFor(async () => (await there.get('s1', 'long'))?.output.stdout.includes('tick 2') ?? false, {
      what: 'the job to run',
    });
    await there.cancel('s1', 'long');
    await mirrored;
    expect(await there.get('s1', 'long')).toMatchObject({ state: 'cancelled' });
  });

  it('records the end once Redis is back when the script ended while Redis was down', async () => {
    const prefix = freshPrefix();
    const server = await startRedisServer();
    const own = connections(server.url);
    try {
      const store = createRedisJobStore({
        connection: await own.open(prefix, { healthIntervalMs: 100 }),
        ttlMs: 60_000,
        maxRunningPerOwner: 4,
        maxOutputBytes: 4096,
      });
      stores.push(store);
      await store.start({
        id: 'gap',
        owner: 's1',
        skill: 'ticks',
        script: 'ticks.sh',
        startedAt: Date.now(),
      });
      const running = await start(['10']);
      const errors: unknown[] = [];
      const mirrored = mirrorJob(store, 'gap', running, { intervalMs: 50, onError: (e) => errors.push(e) });
      await server.stop();
      await running.done;
      await waitFor(() => errors.length > 0, { what: 'the failed write to be reported' });
      await server.start();
      await mirrored;
      expect(await store.get('s1', 'gap')).toMatchObject({ state: 'exited', exitCode: 0 });
    } finally {
      await own.closeAll();
      await server.close();
    }
  });
});
