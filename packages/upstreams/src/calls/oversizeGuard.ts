/** Options of createOversizeGuard. */
export interface OversizeGuardOptions {
  /** Answers over the bound within `windowMs` that make a caller's calls of the tool refused. */
  readonly strikes: number;
  readonly windowMs: number;
  /** How long they are refused. */
  readonly refuseMs: number;
  /** Most callers and tools remembered at once (the oldest are forgotten first). */
  readonly maxEntries: number;
  readonly now?: () => number;
}

/** Remembers which callers keep getting answers over the bound from which tool. */
export interface OversizeGuard {
  /** Milliseconds the caller's calls of the tool are still refused for, or 0. */
  refusedFor(principal: string, tool: string): number;
  /** The caller got an answer of the tool over the bound. */
  struck(principal: string, tool: string): void;
}

/**
 * A caller that keeps calling a tool whose answers pass max_result_bytes is refused that tool for a while,
 * before anything is sent: each such answer costs the gateway reading up to the bound (about 1.1 MiB by
 * default) and cutting it, and 8 callers doing it in a loop made another tenant's upstream calls 3-6x
 * slower at their p99 (docs/limits.md, "Answers of a call"). It is counted per principal and tool, so
 * other tenants of the same tool, and the caller's other tools, are not affected.
 */
export function createOversizeGuard(options: OversizeGuardOptions): OversizeGuard {
  const now = options.now ?? Date.now;
  // Per principal and tool: the times of recent strikes, and until when calls are refused.
  const entries = new Map<string, { strikes: number[]; refusedUntil: number }>();
  const keyOf = (principal: string, tool: string): string => `${principal}\u0000${tool}`;
  return {
    refusedFor(principal, tool) {
      const entry = entries.get(keyOf(principal, tool));
      return entry === undefined ? 0 : Math.max(0, entry.refusedUntil - now());
    },
    struck(principal, tool) {
      const key = keyOf(principal, tool);
      const at = now();
      const entry = entries.get(key) ?? { strikes: [], refusedUntil: 0 };
      entries.delete(key);
      entry.strikes = [...entry.strikes.filter((t) => at - t < options.windowMs), at].slice(-options.strikes);
      if (entry.strikes.length >= options.strikes) {
        entry.refusedUntil = at + options.refuseMs;
        entry.strikes = [];
      }
      // Re-inserted last: the map's order is the order of last use, and the oldest goes first.
      entries.set(key, entry);
      if (entries.size > options.maxEntries) {
        const oldest = entries.keys().next();
        if (oldest.done !== true) entries.delete(oldest.value);
      }
    },
  };
}
