/** What skill usage counts (docs/observability.md, "Skill usage"). */
export type UsageEvent = 'info' | 'run_ok' | 'run_error' | 'run_limit' | 'read' | 'upstream';

/** n events of one kind for one skill and principal. */
export interface UsageCount {
  readonly skill: string;
  readonly principal: string;
  readonly event: UsageEvent;
  readonly n: number;
}

/** A query text and how often it was searched with no result. */
export interface QueryCount {
  readonly text: string;
  readonly n: number;
}

/** Counts gathered in memory since the last flush, or totals read back. */
export interface UsageFigures {
  readonly counts: readonly UsageCount[];
  /** search_skills calls that returned nothing. */
  readonly emptySearches: number;
  /** The texts of those searches, only when observability.keep_queries is on; bounded by the store. */
  readonly queries: readonly QueryCount[];
}

/** Skill usage of every replica sharing the backend: increments in batches, totals over the kept window. */
export interface UsageStore {
  /** Adds a batch of counts (one round trip with Redis). */
  add(batch: UsageFigures): Promise<void>;
  /** Every count of the kept window (with Redis, the last days; in memory, since the start), queries most searched first. */
  totals(): Promise<UsageFigures>;
}
