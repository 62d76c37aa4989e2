import { budgetIdOf, type Principal } from '../auth/accessPolicy.js';
import { GatewayError } from '../errors/gatewayError.js';

/** Options of createListenStreams (server.max_listen_streams, server.max_listen_streams_per_principal). */
export interface ListenStreamsOptions {
  readonly maxTotal: number;
  readonly maxPerPrincipal: number;
}

/** The open 2026-07-28 `subscriptions/listen` streams of this process, counted per principal. */
export interface ListenStreams {
  /**
   * Counts a new stream of `principal`, or throws RATE_LIMITED (429) when the principal holds its cap, or
   * SESSION_LIMIT (503) when this process holds the total; returns the function that uncounts it.
   */
  acquire(principal: Principal): () => void;
  /** Streams open now. */
  readonly size: number;
}

/**
 * Per-principal caps on listen streams: the SDK's only cap is per handler (its 1,024 by default), so one
 * principal opening them all left every other tenant with HTTP 200 and -32603 "Subscription limit reached".
 */
export function createListenStreams(options: ListenStreamsOptions): ListenStreams {
  const open = new Map<string, number>();
  let total = 0;
  return {
    acquire(principal) {
      const budget = budgetIdOf(principal);
      const held = open.get(budget) ?? 0;
      if (held >= options.maxPerPrincipal) {
        throw new GatewayError(
          'RATE_LIMITED',
          `Too many open subscriptions/listen streams: ${principal.name} holds ${held} (server.max_listen_streams_per_principal); close one first`,
          { headers: { 'Retry-After': '30' } },
        );
      }
      if (total >= options.maxTotal) {
        throw new GatewayError(
          'SESSION_LIMIT',
          `The gateway holds ${total} subscriptions/listen streams (server.max_listen_streams); try again later`,
          { headers: { 'Retry-After': '30' } },
        );
      }
      open.set(budget, held + 1);
      total += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (open.get(budget) ?? 1) - 1;
        if (left === 0) open.delete(budget);
        else open.set(budget, left);
      };
    },
    get size() {
      return total;
    },
  };
}
