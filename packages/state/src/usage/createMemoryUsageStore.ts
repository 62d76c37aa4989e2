import type { QueryCount, UsageCount, UsageStore } from './types.js';
import { MAX_KEPT_QUERIES, usageField } from './usageLimits.js';

/** Usage of one process (the memory backend has one replica), since it started. */
export function createMemoryUsageStore(): UsageStore {
  const counts = new Map<string, UsageCount>();
  const queries = new Map<string, number>();
  let emptySearches = 0;
  return {
    async add(batch) {
      for (const c of batch.counts) {
        const key = usageField(c.event, c.skill, c.principal);
        counts.set(key, { ...c, n: (counts.get(key)?.n ?? 0) + c.n });
      }
      emptySearches += batch.emptySearches;
      for (const q of batch.queries) {
        queries.set(q.text, (queries.get(q.text) ?? 0) + q.n);
        // Past the cap the rarest goes, as Redis's ZREMRANGEBYRANK does.
        if (queries.size > MAX_KEPT_QUERIES) {
          const rarest = [...queries].reduce((a, b) => (b[1] < a[1] ? b : a));
          queries.delete(rarest[0]);
        }
      }
    },
    async totals() {
      const kept: QueryCount[] = [...queries].map(([text, n]) => ({ text, n })).sort((a, b) => b.n - a.n);
      return { counts: [...counts.values()], emptySearches, queries: kept };
    },
  };
}
