import ipaddr from 'ipaddr.js';

/** Options of createFailedAttempts (auth.oauth.failed_attempts_per_minute). */
export interface FailedAttemptsOptions {
  /** Failed server-asking token checks one client address may cause per minute before its next ones wait. */
  readonly perMinute: number;
  /** Addresses remembered at most; past it the oldest window is forgotten (a flood of addresses is bounded). */
  readonly maxAddresses?: number;
  /** Milliseconds on a clock that never goes back (default performance.now); tests pass their own. */
  readonly now?: () => number;
}

/**
 * Failed authentication attempts per client address. Checking an unknown token can cost a request to the
 * authorization server (an introspection made with the gateway's own client credentials, a key-set fetch for
 * an unknown kid), so an unauthenticated client must not be able to make the gateway do that at its own rate:
 * past its budget, an address waits before the gateway asks the server about another token for it. Checks
 * that ask nothing (a JWT against the cached keys, a token known from memory) neither count nor wait
 * (docs/auth.md, "Failed attempts").
 */
export interface FailedAttempts {
  /** 0 when a check from `address` may ask the authorization server, else whole seconds to wait (Retry-After). */
  retryAfter(address: string): number;
  /** Counts one server-asking check from `address` as under way until end(): it spends budget meanwhile. */
  begin(address: string): void;
  /** Ends a check begin() counted (call record() as well if it failed). */
  end(address: string): void;
  /** Counts one failed check from `address`. */
  record(address: string): void;
}

const WINDOW_MS = 60_000;

/**
 * The budget an address spends: an IPv4 address (IPv4-mapped IPv6 included) on its own, an IPv6 address as
 * its /64. One host commonly holds a whole /64 and can send from any address in it, so counting IPv6
 * addresses one by one would give it 2^64 budgets.
 */
function attemptKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (!(parsed instanceof ipaddr.IPv6)) return parsed.toString();
  return `${parsed.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

interface Window {
  readonly start: number;
  failures: number;
}

/** Builds the per-address budget: a fixed one-minute window per address, at most maxAddresses of them. */
export function createFailedAttempts(options: FailedAttemptsOptions): FailedAttempts {
  const now = options.now ?? (() => performance.now());
  const maxAddresses = options.maxAddresses ?? 10_000;
  const windows = new Map<string, Window>();
  // Checks under way per address. They count against the budget as if they had failed: a client sending
  // many new tokens at once would otherwise have them all checked before the first failure is counted.
  // Bounded by the requests in flight; an address leaves when its last check ends.
  const checking = new Map<string, number>();
  const current = (address: string, t: number): Window | undefined => {
    const window = windows.get(address);
    if (window === undefined || t - window.start < WINDOW_MS) return window;
    windows.delete(address);
    return undefined;
  };
  return {
    retryAfter(address) {
      if (options.perMinute <= 0) return 0;
      const t = now();
      const key = attemptKey(address);
      const window = current(key, t);
      const spent = (window?.failures ?? 0) + (checking.get(key) ?? 0);
      if (spent < options.perMinute) return 0;
      // Only checks under way fill the budget: one second, by then they have mostly ended.
      if (window === undefined || window.failures < options.perMinute) return 1;
      return Math.max(1, Math.ceil((window.start + WINDOW_MS - t) / 1000));
    },
    begin(address) {
      if (options.perMinute <= 0) return;
      const key = attemptKey(address);
      checking.set(key, (checking.get(key) ?? 0) + 1);
    },
    end(address) {
      if (options.perMinute <= 0) return;
      const key = attemptKey(address);
      const left = (checking.get(key) ?? 0) - 1;
      if (left > 0) checking.set(key, left);
      else checking.delete(key);
    },
    record(from) {
      if (options.perMinute <= 0) return;
      const address = attemptKey(from);
      const t = now();
      const window = current(address, t);
      if (window !== undefined) {
        window.failures += 1;
        return;
      }
      if (windows.size >= maxAddresses) {
        for (const [key, old] of windows) if (t - old.start >= WINDOW_MS) windows.delete(key);
        // Still full: the oldest window goes (Map order is insertion order).
        const oldest = windows.keys().next();
        if (windows.size >= maxAddresses && oldest.done !== true) windows.delete(oldest.value);
      }
      windows.set(address, { start: t, failures: 1 });
    },
  };
}
