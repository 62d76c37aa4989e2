import type { UsageCount, UsageEvent, UsageFigures, UsageStore } from '@skillgate/state';
import { boundStrings } from './boundStrings.js';
import type { Metrics } from './metrics.js';
import type { SecretRedactor } from './redactSecrets.js';

/** What one tool call adds to skill usage: an event of a catalog skill, or a search that found nothing. */
export type UsageMark =
  | { readonly skill: string; readonly event: UsageEvent }
  | { readonly emptySearch: string };

/** Options of createUsageCounter. */
export interface UsageCounterOptions {
  readonly store: UsageStore;
  readonly metrics: Pick<Metrics, 'inc' | 'counter'>;
  /** observability.keep_queries: keep the text of zero-result searches (else only their count). */
  readonly keepQueries: boolean;
  /** The gateway's redactor: configured secret values are cut from a kept query. */
  readonly redact: SecretRedactor;
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

/** One (event, skill) pair: its metrics series, and this replica's unflushed counts by principal. */
interface SkillUsage {
  readonly count: () => void;
  byPrincipal: Map<string, { -readonly [K in keyof UsageCount]: UsageCount[K] }>;
}

const DEFAULT_FLUSH_MS = 1000;
const MAX_PENDING_QUERIES = 100;

/**
 * The hot path pays a Map increment per call; Redis sees one MULTI per replica per second at most, whatever
 * the call rate. Keys are bounded by the catalog's skills x the principals x six events, and kept query
 * texts by the store's cap, so a failed flush that keeps its counts cannot grow without bound either.
 */
export function createUsageCounter(options: UsageCounterOptions): UsageCounter {
  // Counts per event, then skill, then principal: the strings are the catalog's and the principals' own, whose
  // hashes V8 keeps, so a call builds no key. Each (event, skill) keeps its metrics series bound, so a call
  // also builds no label object. Entries are mutable: a repeat call adds to its entry in place.
  const tree = new Map<UsageEvent, Map<string, SkillUsage>>();
  let queries = new Map<string, number>();
  let emptySearches = 0;
  let flushing: Promise<void> | undefined;
  const usageOf = (skill: string, event: UsageEvent): SkillUsage => {
    let bySkill = tree.get(event);
    if (bySkill === undefined) {
      bySkill = new Map();
      tree.set(event, bySkill);
    }
    let usage = bySkill.get(skill);
    if (usage === undefined) {
      usage = {
        count: options.metrics.counter('skillgate_skill_usage_total', { skill, event }),
        byPrincipal: new Map(),
      };
      bySkill.set(skill, usage);
    }
    return usage;
  };
  const take = (): UsageFigures => {
    const counts: UsageCount[] = [];
    for (const bySkill of tree.values())
      for (const [skill, usage] of bySkill) {
        // Unused since the last flush: dropped, so skills of earlier catalogs are not held (a later call
        // binds its series again, one walk).
        if (usage.byPrincipal.size === 0) {
          bySkill.delete(skill);
          continue;
        }
        counts.push(...usage.byPrincipal.values());
        usage.byPrincipal = new Map();
      }
    const batch = { counts, emptySearches, queries: [...queries].map(([text, n]) => ({ text, n })) };
    queries = new Map();
    emptySearches = 0;
    return batch;
  };
  const putBack = (batch: UsageFigures): void => {
    for (const c of batch.counts) add(usageOf(c.skill, c.event), c.principal, c.skill, c.event, c.n);
    emptySearches += batch.emptySearches;
    for (const q of batch.queries) queries.set(q.text, (queries.get(q.text) ?? 0) + q.n);
  };
  const add = (usage: SkillUsage, principal: string, skill: string, event: UsageEvent, n: number): void => {
    const held = usage.byPrincipal.get(principal);
    if (held === undefined) usage.byPrincipal.set(principal, { skill, principal, event, n });
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
        const text = options.redact(boundStrings(mark.emptySearch.trim(), options.maxQueryChars));
        // Bounded between flushes as the store bounds it: past the cap, only texts already held count.
        if (text === '' || (!queries.has(text) && queries.size >= MAX_PENDING_QUERIES)) return;
        queries.set(text, (queries.get(text) ?? 0) + 1);
        return;
      }
      const usage = usageOf(mark.skill, mark.event);
      add(usage, principal, mark.skill, mark.event, 1);
      usage.count();
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
