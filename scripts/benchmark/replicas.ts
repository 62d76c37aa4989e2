// pnpm bench, replicas part: the Redis state backend against memory on one replica, two replicas behind
// HAProxy against one, and the bytes a session costs in Redis. Uses the real redis-server and haproxy that
// the gateway's replica tests start (apps/gateway/test/helpers), and skips itself when they are absent.
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { type Haproxy, type RedisServer, startHaproxy, startRedisServer } from '@skillgate/testkit';
import { execa } from 'execa';
import type { BenchContext } from './context.js';
import { type SessionLoad as LoadResult, sessionLoad } from './httpPhase.js';
import { type BenchServer, openSessions, rpc, startServer } from './support.js';
import { TARGETS } from './targets.js';

/** How the replicas are loaded: seconds per run, rounds of alternating runs (each figure the median). */
interface LoadPlan {
  readonly seconds: number;
  readonly rounds: number;
  readonly sessions: number;
}

const LIST = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
const INFO = {
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'skill_csv-tools_get_info', arguments: {} },
};

const installed = (command: string, flag: string): boolean => spawnSync(command, [flag]).status === 0;

/**
 * Opens sessions through url and unlocks a skill in each, twice in a row (consecutive requests go to the
 * two replicas behind a round-robin balancer, so both hold a copy before the measurement starts).
 */
async function warm(url: string, n: number): Promise<string[]> {
  const { ids } = await openSessions(url, n);
  for (const id of ids) for (let i = 0; i < 2; i++) await rpc(url, id, INFO);
  return ids;
}

type Setup = 'memory' | 'redisOne' | 'proxiedOne' | 'proxiedTwo';
type Measured = Record<Setup, { list: LoadResult; info: LoadResult }>;

/** The median run of several (by requests per second), so that one disturbed round does not decide. */
function median(runs: readonly LoadResult[]): LoadResult {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no runs');
  return {
    ...middle,
    p50: [...runs].map((r) => r.p50).sort((a, b) => a - b)[Math.floor(runs.length / 2)] ?? 0,
  };
}

/**
 * Every setup runs at once (idle ones cost next to nothing) and is measured in alternation, round after
 * round, so that load from elsewhere on the machine hits them alike; each figure is the median round.
 */
async function measureAll(deps: LoadPlan, urls: Readonly<Record<Setup, string>>): Promise<Measured> {
  const setups = Object.keys(urls) as Setup[];
  const sessions = new Map<Setup, string[]>();
  for (const setup of setups) sessions.set(setup, await warm(urls[setup], deps.sessions));
  const runs = new Map<string, LoadResult[]>();
  for (let round = 0; round < deps.rounds; round++) {
    for (const setup of setups) {
      for (const [key, body] of [
        ['list', LIST],
        ['info', INFO],
      ] as const) {
        const result = await sessionLoad(urls[setup], sessions.get(setup) ?? [], body, deps.seconds);
        runs.set(`${setup}:${key}`, [...(runs.get(`${setup}:${key}`) ?? []), result]);
      }
    }
  }
  const of = (setup: Setup) => ({
    list: median(runs.get(`${setup}:list`) ?? []),
    info: median(runs.get(`${setup}:info`) ?? []),
  });
  return {
    memory: of('memory'),
    redisOne: of('redisOne'),
    proxiedOne: of('proxiedOne'),
    proxiedTwo: of('proxiedTwo'),
  };
}

async function redisMemory(redis: RedisServer): Promise<number> {
  const { stdout } = await execa('redis-cli', ['-p', String(redis.port), 'info', 'memory']);
  return Number(/used_memory:(\d+)/.exec(stdout)?.[1] ?? Number.NaN);
}

/** The replicas phase: adds its rows and keeps the raw figures as results.replicas. */
export async function replicasPhase(context: BenchContext): Promise<void> {
  context.result('replicas', await replicas(context));
}

async function replicas(context: BenchContext): Promise<Record<string, unknown>> {
  const { row, fmt } = context;
  const deps = {
    examples: context.examples,
    seconds: context.quick ? 2 : 4,
    rounds: context.quick ? 1 : 3,
    sessions: 50,
    note: context.note,
  };
  if (!installed('redis-server', '--version') || !installed('haproxy', '-v')) {
    const why = 'skipped: redis-server or haproxy is not installed (apt-get install redis-server haproxy)';
    deps.note(`replicas benchmark ${why}`);
    row('replicas', 'Redis backend and replicas behind HAProxy', why, '', '', '');
    return { skipped: why };
  }
  const redis = await startRedisServer({ appendOnly: false });
  const servers: BenchServer[] = [];
  const balancers: Haproxy[] = [];
  const start = async (prefix?: string): Promise<BenchServer> => {
    const env: Record<string, string> =
      prefix === undefined ? {} : { SKILLGATE_REDIS_URL: redis.url, BENCH_KEY_PREFIX: prefix };
    const server = await startServer('gateway', deps.examples, 'namespaced', 'auto', env);
    servers.push(server);
    return server;
  };
  const balance = async (backends: readonly BenchServer[]): Promise<string> => {
    const proxy = await startHaproxy({ ports: backends.map((s) => Number(new URL(s.url).port)) });
    balancers.push(proxy);
    return proxy.base;
  };
  const stopAll = async () => {
    for (const proxy of balancers.splice(0)) await proxy.close();
    for (const server of servers.splice(0)) await server.stop();
  };
  try {
    const single = await start('bench-one:');
    const pair = [await start('bench-two:'), await start('bench-two:')];
    const measured = await measureAll(deps, {
      memory: (await start()).url,
      redisOne: single.url,
      proxiedOne: await balance([single]),
      proxiedTwo: await balance(pair),
    });
    await stopAll();
    const { memory, redisOne, proxiedOne, proxiedTwo } = measured;

    for (const [name, key] of [
      ['tools/list', 'list'],
      ['get_info (tools/call)', 'info'],
    ] as const) {
      const [r, m] = [redisOne[key], memory[key]];
      row(
        'replicas',
        `${name} req/s, Redis backend (1 replica, ${deps.sessions} connections)`,
        fmt(r.rps),
        `memory ${fmt(m.rps)}`,
        `${fmt((r.rps / m.rps) * 100, 0)}%`,
        TARGETS.redisThroughput,
        r.rps / m.rps,
      );
      row(
        'replicas',
        `${name} p50 ms, Redis backend (1 replica)`,
        String(r.p50),
        `memory ${m.p50}`,
        `${r.p50 - m.p50 >= 0 ? '+' : ''}${fmt(r.p50 - m.p50, 1)} ms`,
        TARGETS.redisLatency,
        r.p50 - m.p50,
      );
      const [two, one] = [proxiedTwo[key], proxiedOne[key]];
      row(
        'replicas',
        `${name} req/s, 2 replicas behind HAProxy`,
        fmt(two.rps),
        `1 replica behind HAProxy ${fmt(one.rps)}`,
        `${fmt(two.rps / one.rps, 2)}x`,
        '',
      );
      row(
        'replicas',
        `${name} req/s, 1 replica behind HAProxy`,
        fmt(one.rps),
        `same replica direct ${fmt(r.rps)}`,
        `${fmt((one.rps / r.rps) * 100, 0)}%`,
        '',
      );
      const errors = [memory, redisOne, proxiedOne, proxiedTwo].reduce((n, run) => n + run[key].errors, 0);
      if (errors > 0)
        row('replicas', `${name} failed answers`, String(errors), '', '', TARGETS.noErrors, errors);
    }
    deps.note(
      `replicas: this machine has ${cpus().length} cores shared by the load generator, ` +
        'HAProxy, Redis and the gateways, so a second replica adds a process competing for the same cores ' +
        'instead of adding capacity: the 2-vs-1 ratio shows the overhead of the extra hop and of sharing, not ' +
        'scaling. Scaling needs replicas on separate cores or hosts.',
    );

    // Bytes per session: sessions opened and unlocked on one replica, Redis memory before and after.
    const counting = await start('bench-bytes:');
    await warm(counting.url, 20);
    const before = await redisMemory(redis);
    const n = deps.sessions * 20;
    const { ids } = await openSessions(counting.url, n);
    for (const id of ids) await rpc(counting.url, id, INFO);
    const perSession = ((await redisMemory(redis)) - before) / n;
    await stopAll();
    row(
      'replicas',
      'Redis memory per session (record, 1 unlocked skill, indexes)',
      `${fmt(perSession)} bytes`,
      `${n} sessions`,
      '',
      '',
    );
    return {
      memory,
      redis_one: redisOne,
      haproxy_one: proxiedOne,
      haproxy_two: proxiedTwo,
      bytes_per_session: perSession,
    };
  } finally {
    await stopAll();
    await redis.close();
  }
}
