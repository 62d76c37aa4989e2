import type { RedisConnection } from '../redis/createRedisConnection.js';
import type { UsageCount, UsageEvent, UsageStore } from './types.js';
import {
  EMPTY_SEARCH_FIELD,
  MAX_KEPT_QUERIES,
  parseUsageField,
  USAGE_DAYS,
  USAGE_EVENTS,
  usageField,
} from './usageLimits.js';

const DAY_MS = 86_400_000;
const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Options of createRedisUsageStore. */
export interface RedisUsageStoreOptions {
  readonly connection: RedisConnection;
  /** The clock (tests move it across days). */
  readonly now?: () => number;
}

/**
 * Usage shared by every replica: one hash per UTC day (HINCRBY per skill, event and principal; it expires
 * after USAGE_DAYS), and one sorted set of zero-result query texts trimmed to the MAX_KEPT_QUERIES most
 * searched. A batch is one MULTI; totals read the kept days in one pipeline.
 */
export function createRedisUsageStore(options: RedisUsageStoreOptions): UsageStore {
  const { connection } = options;
  const now = options.now ?? Date.now;
  const dayKey = (day: string) => connection.key('usage', day);
  const queriesKey = connection.key('usage', 'queries');
  return {
    async add(batch) {
      if (batch.counts.length === 0 && batch.emptySearches === 0 && batch.queries.length === 0) return;
      const key = dayKey(dayOf(now()));
      await connection.run(async (client) => {
        const tx = client.multi();
        for (const c of batch.counts) tx.hincrby(key, usageField(c.event, c.skill, c.principal), c.n);
        if (batch.emptySearches > 0) tx.hincrby(key, EMPTY_SEARCH_FIELD, batch.emptySearches);
        tx.expire(key, (USAGE_DAYS + 1) * 86_400);
        if (batch.queries.length > 0) {
          for (const q of batch.queries) tx.zincrby(queriesKey, q.n, q.text);
          tx.zremrangebyrank(queriesKey, 0, -(MAX_KEPT_QUERIES + 1));
          tx.expire(queriesKey, (USAGE_DAYS + 1) * 86_400);
        }
        await tx.exec();
      });
    },
    async totals() {
      const today = now();
      const days = Array.from({ length: USAGE_DAYS }, (_, i) => dayKey(dayOf(today - i * DAY_MS)));
      const [hashes, ranked] = await connection.run(async (client) => {
        const pipeline = client.pipeline();
        for (const key of days) pipeline.hgetall(key);
        const replies = (await pipeline.exec()) ?? [];
        const top = await client.zrevrange(queriesKey, 0, MAX_KEPT_QUERIES - 1, 'WITHSCORES');
        return [replies.map(([, value]) => value as Record<string, string> | null), top] as const;
      });
      const counts = new Map<string, UsageCount>();
      let emptySearches = 0;
      for (const hash of hashes) {
        for (const [field, text] of Object.entries(hash ?? {})) {
          const n = Number(text);
          if (field === EMPTY_SEARCH_FIELD) {
            emptySearches += n;
            continue;
          }
          const parts = parseUsageField(field);
          if (parts === undefined || !USAGE_EVENTS.has(parts.event)) continue;
          const previous = counts.get(field)?.n ?? 0;
          counts.set(field, { ...parts, event: parts.event as UsageEvent, n: previous + n });
        }
      }
      const queries = [];
      for (let i = 0; i + 1 < ranked.length; i += 2)
        queries.push({ text: ranked[i] ?? '', n: Number(ranked[i + 1]) });
      return { counts: [...counts.values()], emptySearches, queries };
    },
  };
}
