import { createIdleMap } from './createIdleMap.js';
import { SessionError } from './sessionError.js';
import type {
  MemorySessionStoreOptions,
  SessionRecord,
  SessionStore,
  UnlockLimit,
  UnlockOutcome,
} from './types.js';

const EMPTY: ReadonlySet<string> = new Set();
const UNCHANGED: UnlockOutcome = Object.freeze({ added: false, dropped: Object.freeze([]) });

/**
 * In-memory SessionStore: sessions and unlock sets in idle-expiring maps; unlocks per scope key.
 * A session costs its record plus the names it unlocked, whatever the catalog size.
 */
/** Whose sessions.max_per_principal a session counts against (SessionRecord.capKey). */
const capKeyOf = (record: SessionRecord): string => record.capKey ?? record.principal;

export function createMemorySessionStore(options: MemorySessionStoreOptions): SessionStore {
  const perPrincipal = new Map<string, number>();
  // Unlocks live apart from sessions so that `scope: principal` outlives one connection;
  // they idle out with the same TTL as sessions.
  // Read up to three times per request (its list, its call, an unlock): the idle time restarts at most every
  // hundredth of the TTL (at most a second), and runs that much longer, so a set never idles out before a
  // session that still reads it. Nothing lists unlock sets by recency.
  const unlockRefreshMs = Math.min(1000, options.ttlMs / 100);
  const unlocks = createIdleMap<string, Set<string>>({
    ttlMs: options.ttlMs + unlockRefreshMs,
    refreshAfterMs: unlockRefreshMs,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  let closed = false;

  // The one place a session leaves the store, whether deleted or expired.
  const release = (record: SessionRecord): void => {
    const key = capKeyOf(record);
    const left = (perPrincipal.get(key) ?? 1) - 1;
    if (left <= 0) perPrincipal.delete(key);
    else perPrincipal.set(key, left);
    if (record.scopeKey === record.id) unlocks.delete(record.scopeKey);
  };

  const sessions = createIdleMap<string, SessionRecord>({
    ttlMs: options.ttlMs,
    ...(options.now === undefined ? {} : { now: options.now }),
    onExpire: (_id, record) => {
      release(record);
      options.onExpire?.(record);
    },
  });

  return {
    async create(record) {
      if (closed) throw new SessionError('SESSION_LIMIT', 'session store is closed');
      sessions.sweep();
      let evicted: SessionRecord | undefined;
      const key = capKeyOf(record);
      if ((perPrincipal.get(key) ?? 0) >= options.maxPerPrincipal) {
        // Clients that never DELETE their sessions would lock their principal out: the principal's
        // longest-idle session makes room. The map is in order of last use, so the first match is it.
        for (const [id, held] of sessions.entries()) {
          if (capKeyOf(held) !== key) continue;
          sessions.delete(id);
          release(held);
          evicted = held;
          break;
        }
      }
      // A principal replacing its own session adds nothing, so only a new one counts against the total.
      if (evicted === undefined && sessions.size >= options.maxSessions) {
        throw new SessionError('SESSION_LIMIT', `the gateway already holds ${options.maxSessions} sessions`);
      }
      const previous = sessions.peek(record.id);
      if (previous !== undefined) release(previous);
      perPrincipal.set(key, (perPrincipal.get(key) ?? 0) + 1);
      sessions.set(record.id, record);
      return evicted;
    },
    async get(id) {
      return sessions.get(id);
    },
    async touch(id) {
      const record = sessions.get(id);
      if (record === undefined) return undefined;
      return { record, unlocked: unlocks.get(record.scopeKey) ?? EMPTY };
    },
    async delete(id) {
      const record = sessions.peek(id);
      if (record === undefined) return false;
      sessions.delete(id);
      release(record);
      return true;
    },
    async unlock(scopeKey, skill, limit) {
      let set = unlocks.get(scopeKey);
      if (set === undefined) {
        set = new Set();
        unlocks.set(scopeKey, set);
      }
      // A Set iterates in insertion order: re-adding moves the skill to the end, the most recently used.
      const added = !set.delete(skill);
      set.add(skill);
      if (limit !== undefined) return { added, dropped: dropLeastRecent(set, skill, limit) };
      // A repeated get_info of a skill already unlocked: one shared answer, nothing allocated.
      return added ? { added, dropped: [] } : UNCHANGED;
    },
    async use(scopeKey, skill) {
      const set = unlocks.get(scopeKey);
      if (set?.delete(skill) === true) set.add(skill);
    },
    async unlocked(scopeKey) {
      return unlocks.get(scopeKey) ?? EMPTY;
    },
    async forget(skills) {
      const changed: string[] = [];
      for (const [scopeKey, set] of unlocks.entries()) {
        let removed = false;
        for (const skill of skills) removed = set.delete(skill) || removed;
        if (removed) changed.push(scopeKey);
      }
      return changed;
    },
    async count() {
      sessions.sweep();
      return sessions.size;
    },
    async recent(limit) {
      sessions.sweep();
      // The map is in order of last use: keep a window of the last `limit`, so memory stays bounded by it.
      const last: SessionRecord[] = [];
      if (limit <= 0) return last;
      for (const [, record] of sessions.entries()) {
        if (last.length === limit) last.shift();
        last.push(record);
      }
      return last.reverse();
    },
    async close() {
      closed = true;
      sessions.clear();
      unlocks.clear();
      perPrincipal.clear();
    },
  };
}

/** Drops the least recently used skills of a set (oldest first) but `keep` until the rest fit the limit. */
function dropLeastRecent(set: Set<string>, keep: string, limit: UnlockLimit): string[] {
  const cost = (skill: string) => limit.costs.get(skill) ?? 0;
  let total = 0;
  for (const skill of set) total += cost(skill);
  const dropped: string[] = [];
  for (const skill of set) {
    if (total <= limit.budget) break;
    if (skill === keep || cost(skill) === 0) continue;
    set.delete(skill);
    total -= cost(skill);
    dropped.push(skill);
  }
  return dropped;
}
