import type { UsageCount, UsageEvent, UsageFigures, UsageStore } from '@skillgate/state';
import { boundStrings } from './boundStrings.js';
import type { Metrics } from './metrics.js';
import { redactSecrets } from './redactSecrets.js';

/** What one tool call adds to skill usage: an event of a catalog skill, or a search that found nothing. */
export type UsageMark =
  | { readonly skill: string; readonly event: UsageEvent }
  | { readonly emptySearch: string };

/** Options of createUsageCounter. */
export interface UsageCounterOptions {
  readonly store: UsageStore;
  readonly metrics: Pick<Metrics, 'inc'>;
  /** observability.keep_queries: keep the text of zero-result searches (else only their count). */
  readonly keepQueries: boolean;
  /** Configured secret values, cut from a kept query. */
  readonly secrets: readonly string[];
  /** Longest query text kept (server.max_client_string_chars). */
  readonly maxQueryChars: number;
  /** How often the counts go to the store (default 1000 ms). */
  readonly flushMs?: number;
  /** A failed flush: its counts stay for the next one. */
  readonly onError: (error: unknown) => void;
}

/** Counts skill usage in memory on the call path and sends it to the shared store in batches. */
export interface UsageCounter {
  /** Counts one call of a principal (no I/O). */
  record(principal: string, mark: UsageMark): void;
  /** Sends what was counted since the last flush. */
  flush(): Promise<void>;
  /** The store's totals plus what this replica has not flushed yet. */
  totals(): Promise<UsageFigures>;
  /** Stops the timer and flushes once more. */
  close(): Promise<void>;
}

const DEFAULT_FLUSH_MS = 1000;
const MAX_PENDING_QUERIES = 100;

/**
 * The hot path pays a Map increment per call; Redis sees one MULTI per replica per second at most, whatever
 * the call rate. Keys are bounded by the catalog's skills x the principals x six events, and kept query
 * texts by the store's cap, so a failed flush that keeps its counts cannot grow without bound either.
 */
export function createUsageCounter(options: UsageCounterOptions): UsageCounter {
  // Mutable entries: a repeat call adds to its entry in place (no allocation on the call path).
  let counts = new Map<string, { -readonly [K in keyof UsageCount]: UsageCount[K] }>();
  let queries = new Map<string, number>();
  let emptySearches = 0;
  let flushing: Promise<void> | undefined;
  const take = (): UsageFigures => {
    const batch = {
      counts: [...counts.values()],
      emptySearches,
      queries: [...queries].map(([text, n]) => ({ text, n })),
    };
    counts = new Map();
    queries = new Map();
    emptySearches = 0;
    return batch;
  };
  const putBack = (batch: UsageFigures): void => {
    for (const c of batch.counts) add(c.principal, c.skill, c.event, c.n);
    emptySearches += batch.emptySearches;
    for (const q of batch.queries) queries.set(q.text, (queries.get(q.text) ?? 0) + q.n);
  };
  const add = (principal: string, skill: string, event: UsageEvent, n: number): void => {
    const key = `${event}\t${skill}\t${principal}`;
    const held = counts.get(key);
    if (held === undefined) counts.set(key, { skill, principal, event, n });
    else held.n += n;
  };
  const flush = async (): Promise<void> => {
    // One flush at a time: a slow Redis never piles up overlapping batches.
    if (flushing !== undefined) return flushing;
    const batch = take();
    if (batch.counts.length === 0 && batch.emptySearches === 0 && batch.queries.length === 0) return;
    flushing = options.store
      .add(batch)
      .catch((error: unknown) => {
        putBack(batch);
        options.onError(error);
      })
      .finally(() => {
        flushing = undefined;
      });
    return flushing;
  };
  const timer = setInterval(() => void flush(), options.flushMs ?? DEFAULT_FLUSH_MS);
  timer.unref();
  return {
    record(principal, mark) {
      if ('emptySearch' in mark) {
        emptySearches += 1;
        options.metrics.inc('skillgate_search_empty_total');
        if (!options.keepQueries) return;
        const text = redactSecrets(
          boundStrings(mark.emptySearch.trim(), options.maxQueryChars),
          options.secrets,
        );
        // Bounded between flushes as the store bounds it: past the cap, only texts already held count.
        if (text === '' || (!queries.has(text) && queries.size >= MAX_PENDING_QUERIES)) return;
        queries.set(text, (queries.get(text) ?? 0) + 1);
        return;
      }
      add(principal, mark.skill, mark.event, 1);
      options.metrics.inc('skillgate_skill_usage_total', { skill: mark.skill, event: mark.event });
    },
    flush,
    async totals() {
      await flush();
      return options.store.totals();
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
