import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryUsageStore } from '../src/usage/createMemoryUsageStore.js';
import { createRedisUsageStore } from '../src/usage/createRedisUsageStore.js';
import type { UsageStore } from '../src/usage/types.js';
import { MAX_KEPT_QUERIES, USAGE_DAYS } from '../src/usage/usageLimits.js';
import { connections, freshPrefix } from './helpers/redisReplicas.js';

let redis: RedisServer;
let pool: ReturnType<typeof connections>;
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  pool = connections(redis.url);
});
afterEach(async () => pool.closeAll());
afterAll(async () => redis.close());

const DAY = 86_400_000;
const sorted = (figures: Awaited<ReturnType<UsageStore['totals']>>) =>
  [...figures.counts].sort((a, b) =>
    `${a.event}${a.skill}${a.principal}`.localeCompare(`${b.event}${b.skill}${b.principal}`),
  );

describe.each([
  ['memory', async () => [createMemoryUsageStore()] as const],
  [
    'redis (two replicas)',
    async () => {
      const prefix = freshPrefix();
      const a = await pool.open(prefix);
      const b = await pool.open(prefix);
      return [createRedisUsageStore({ connection: a }), createRedisUsageStore({ connection: b })] as const;
    },
  ],
])('usage store, %s', (_name, open) => {
  it('adds batches from every replica into one total per skill, event and principal', async () => {
    const stores = await open();
    const first = stores[0];
    const last = stores[stores.length - 1] ?? first;
    await first.add({
      counts: [
        { skill: 'pdf', principal: 'agent-a', event: 'info', n: 2 },
        { skill: 'pdf', principal: 'agent\tb', event: 'run_ok', n: 1 },
      ],
      emptySearches: 1,
      queries: [{ text: 'invoice ocr', n: 1 }],
    });
    await last.add({
      counts: [{ skill: 'pdf', principal: 'agent-a', event: 'info', n: 3 }],
      emptySearches: 2,
      queries: [
        { text: 'invoice ocr', n: 2 },
        { text: 'slides', n: 1 },
      ],
    });
    const totals = await first.totals();
    expect(sorted(totals)).toEqual([
      { skill: 'pdf', principal: 'agent-a', event: 'info', n: 5 },
      { skill: 'pdf', principal: 'agent\tb', event: 'run_ok', n: 1 },
    ]);
    expect(totals.emptySearches).toBe(3);
    expect(totals.queries).toEqual([
      { text: 'invoice ocr', n: 3 },
      { text: 'slides', n: 1 },
    ]);
  });

  it(`keeps at most ${MAX_KEPT_QUERIES} zero-result queries, the most searched`, async () => {
    const [store] = await open();
    await store.add({ counts: [], emptySearches: 0, queries: [{ text: 'often', n: 5 }] });
    for (let i = 0; i < MAX_KEPT_QUERIES + 20; i++)
      await store.add({ counts: [], emptySearches: 1, queries: [{ text: `q${i}`, n: 1 }] });
    const { queries } = await store.totals();
    expect(queries).toHaveLength(MAX_KEPT_QUERIES);
    expect(queries[0]).toEqual({ text: 'often', n: 5 });
  });
});

describe('usage store, redis days', () => {
  it(`forgets usage older than ${USAGE_DAYS} days`, async () => {
    const connection = await pool.open(freshPrefix());
    let now = 1_795_000_000_000;
    const store = createRedisUsageStore({ connection, now: () => now });
    await store.add({
      counts: [{ skill: 'old', principal: 'p', event: 'read', n: 1 }],
      emptySearches: 0,
      queries: [],
    });
    now += DAY;
    await store.add({
      counts: [{ skill: 'new', principal: 'p', event: 'read', n: 1 }],
      emptySearches: 0,
      queries: [],
    });
    expect((await store.totals()).counts.map((c) => c.skill).sort()).toEqual(['new', 'old']);
    now += (USAGE_DAYS - 1) * DAY;
    expect((await store.totals()).counts.map((c) => c.skill)).toEqual(['new']);
  });
});
