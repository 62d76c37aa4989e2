import type { SessionStore } from '@skillgate/state';

/**
 * A shared SessionStore whose unlock reads come from the snapshot the request's own touch() brought back,
 * so that a 2025-era request costs one round trip to Redis instead of two or three (docs/scale-out.md,
 * "Round trips"). Every legacy request touches its session before any handler runs, so the snapshot a
 * handler reads is at least as fresh as the request: an unlock made on another replica before the request
 * arrived is in it. Unlock sets only grow between reloads (a reload clears every snapshot) unless the scope is
 * held to `tools.max_listed`, where an unlock may drop other skills: the store says which, and the snapshot
 * drops them too. Without that limit a skill in the snapshot is unlocked for certain and a repeated get_info
 * needs no write.
 */
export function withUnlockSnapshots(store: SessionStore, maxEntries: number): SessionStore {
  // Most recently touched last; the oldest goes past maxEntries (a scope without a snapshot reads the store).
  const snapshots = new Map<string, Set<string>>();
  return {
    ...store,
    async touch(id) {
      const touched = await store.touch(id);
      if (touched === undefined) return undefined;
      const { scopeKey } = touched.record;
      snapshots.delete(scopeKey);
      snapshots.set(scopeKey, new Set(touched.unlocked));
      if (snapshots.size > maxEntries) {
        const oldest = snapshots.keys().next();
        if (oldest.done !== true) snapshots.delete(oldest.value);
      }
      return touched;
    },
    async unlocked(scopeKey) {
      return snapshots.get(scopeKey) ?? (await store.unlocked(scopeKey));
    },
    async unlock(scopeKey, skill, limit) {
      // Without a limit recency does not matter, so a skill already unlocked needs no write; with one, a repeated
      // get_info makes the skill the most recently used, which only the store can record.
      if (limit === undefined && snapshots.get(scopeKey)?.has(skill) === true)
        return { added: false, dropped: [] };
      const outcome = await store.unlock(scopeKey, skill, limit);
      const snapshot = snapshots.get(scopeKey);
      if (snapshot !== undefined) {
        for (const name of outcome.dropped) snapshot.delete(name);
        snapshot.delete(skill);
        snapshot.add(skill);
      }
      return outcome;
    },
    async forget(skills) {
      snapshots.clear();
      return store.forget(skills);
    },
  };
}
