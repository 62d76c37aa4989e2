import { AsyncLocalStorage } from 'node:async_hooks';

interface CallScope {
  readonly signal: AbortSignal;
  claimed: boolean;
}

// The abort signal of the upstream call whose async context is running: the MCP client sends a call's
// HTTP request from inside it, and gives no per-request signal on a 2025-era connection.
const scope = new AsyncLocalStorage<CallScope>();

/** Runs fn with signal as its call's signal: the first HTTP request fn sends ends when it aborts (nodeFetch.ts). */
export function withCallSignal<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  return scope.run({ signal, claimed: false }, fn);
}

/**
 * The signal of the call sending a request now, for its first request only: that is the call itself.
 * Whatever else runs in the call's async context later (a relisting, a reconnect after the call saw the
 * connection go) must not end with the call.
 */
export function claimCallSignal(): AbortSignal | undefined {
  const current = scope.getStore();
  if (current === undefined || current.claimed) return undefined;
  current.claimed = true;
  return current.signal;
}

let callIds = 0;

/**
 * The id of a tools/call sent on a direct path: a string of our own, so it never meets the MCP client's
 * numeric ids on the same session or pipe.
 */
export function nextCallId(): string {
  callIds += 1;
  return `skillgate-call-${callIds}`;
}
