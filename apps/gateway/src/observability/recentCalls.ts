/** One finished tool call as the audit line names it (never its arguments). */
export interface RecentCall {
  /** When it ended (ms since the epoch). */
  readonly at: number;
  readonly principal: string;
  readonly era: 'legacy' | 'modern';
  readonly tool: string;
  readonly kind: string;
  readonly outcome: string;
  readonly durationMs: number;
  /** The upstream called, for calls of upstream tools. */
  readonly upstream?: string;
}

/** The last tool calls of this replica, for the operator page: a fixed-size ring, newest first. */
export interface RecentCalls {
  /** How many calls are kept. */
  readonly capacity: number;
  record(call: RecentCall): void;
  /** Up to `limit` calls, newest first. */
  newest(limit?: number): readonly RecentCall[];
  /** Calls recorded since start (the ring keeps only the last `capacity`). */
  readonly total: number;
}

/** A ring of the last `capacity` tool calls: memory stays bounded whatever the call rate. */
export function createRecentCalls(capacity = 200): RecentCalls {
  const ring: RecentCall[] = [];
  let next = 0;
  let total = 0;
  return {
    capacity,
    record(call) {
      if (capacity <= 0) return;
      ring[next] = call;
      next = (next + 1) % capacity;
      total++;
    },
    newest(limit = capacity) {
      const out: RecentCall[] = [];
      for (let i = 1; i <= Math.min(limit, ring.length); i++) {
        const call = ring[(next - i + capacity) % capacity];
        if (call !== undefined) out.push(call);
      }
      return out;
    },
    get total() {
      return total;
    },
  };
}
