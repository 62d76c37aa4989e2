/** Options of createIdleMap. */
export interface IdleMapOptions<K, V> {
  /** Idle time after which an entry expires; reading or writing an entry restarts it. */
  readonly ttlMs: number;
  /**
   * A read restarts the idle time only once it has run this long (default 0: every read), so an entry read
   * many times a millisecond is not moved on every read; it may then expire up to this much early, and the
   * map's order (most recently used last) is only this exact.
   */
  readonly refreshAfterMs?: number;
  /** Called once per expired entry, after the map no longer holds it (it may touch the map freely). */
  readonly onExpire?: (key: K, value: V) => void;
  readonly now?: () => number;
}

/** A map whose entries expire after an idle time, swept by one timer that the map owns. */
export interface IdleMap<K, V> {
  /** The value, refreshing its idle timer; undefined when absent or expired. */
  get(key: K): V | undefined;
  /** The value without refreshing it. */
  peek(key: K): V | undefined;
  set(key: K, value: V): void;
  /** Removes an entry without calling onExpire; true when it was there. */
  delete(key: K): boolean;
  /** Removes expired entries now (each reported to onExpire). */
  sweep(): void;
  entries(): IterableIterator<[K, V]>;
  readonly size: number;
  /** Drops every entry and stops the timer. */
  clear(): void;
}

interface Slot<V> {
  readonly value: V;
  expiresAt: number;
}

/**
 * Creates an idle-expiring map. Every entry has the same TTL, so a Map kept in order of last use (a touched
 * entry moves to the end) is also in order of expiry: a sweep only looks at the front, and one timer set for
 * the front entry is enough. Expiry has a single owner (the sweep) and callbacks run after the map is
 * consistent, so a callback that deletes or adds entries cannot corrupt it (lru-cache's dispose
 * re-entered from its own purge kept dead sessions counted).
 */
export function createIdleMap<K, V>(options: IdleMapOptions<K, V>): IdleMap<K, V> {
  const now = options.now ?? Date.now;
  const slots = new Map<K, Slot<V>>();
  const refreshAfterMs = options.refreshAfterMs ?? 0;
  let timer: NodeJS.Timeout | undefined;
  let timerAt = Number.POSITIVE_INFINITY;

  const schedule = (): void => {
    const first = slots.values().next();
    if (first.done === true) {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      return;
    }
    const at = first.value.expiresAt;
    // An earlier or equal timer already covers it; the sweep it runs reschedules for whatever is left.
    if (timer !== undefined && timerAt <= at) return;
    if (timer !== undefined) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
        sweep();
      },
      Math.max(0, at - now()) + 1,
    );
    timer.unref();
  };

  const expiredSlot = (slot: Slot<V>, t: number): boolean => slot.expiresAt <= t;

  function sweep(): void {
    const t = now();
    const gone: [K, V][] = [];
    for (const [key, slot] of slots) {
      if (!expiredSlot(slot, t)) break;
      slots.delete(key);
      gone.push([key, slot.value]);
    }
    schedule();
    for (const [key, value] of gone) options.onExpire?.(key, value);
  }

  const live = (key: K, t: number): Slot<V> | undefined => {
    const slot = slots.get(key);
    if (slot === undefined) return undefined;
    if (expiredSlot(slot, t)) {
      // Expired but not yet swept: the sweep reports it, so that onExpire fires exactly once.
      sweep();
      return undefined;
    }
    return slot;
  };

  return {
    get(key) {
      const t = now();
      const slot = live(key, t);
      if (slot === undefined) return undefined;
      if (refreshAfterMs > 0 && t + options.ttlMs - slot.expiresAt < refreshAfterMs) return slot.value;
      slots.delete(key);
      slot.expiresAt = t + options.ttlMs;
      slots.set(key, slot);
      // Moving an entry to the end never brings the front's expiry forward, so the timer set for the old front
      // still comes first (its sweep reschedules): only a map without a timer needs one. Saves an iterator per read.
      if (timer === undefined) schedule();
      return slot.value;
    },
    peek(key) {
      return live(key, now())?.value;
    },
    set(key, value) {
      slots.delete(key);
      slots.set(key, { value, expiresAt: now() + options.ttlMs });
      schedule();
    },
    delete(key) {
      const had = slots.delete(key);
      if (had) schedule();
      return had;
    },
    sweep,
    *entries() {
      for (const [key, slot] of slots) yield [key, slot.value];
    },
    get size() {
      return slots.size;
    },
    clear() {
      slots.clear();
      schedule();
    },
  };
}
