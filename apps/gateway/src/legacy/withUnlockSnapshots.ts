import type { SessionStore } from '@skillgate/state';

/**
 * A shared SessionStore whose unlock reads come from the snapshot the request's own touch() brought back,
 * so that a 2025-era request costs one round trip to Redis instead of two or three (docs/scale-out.md,
 * "Round trips"). Every legacy request touches its session before any handler runs, so the snapshot a
 * handler reads is at least as fresh as the request: an unlock made on another replica before the request
 * arrived is in it. Unlock sets only grow between reloads (a reload clears every snapshot), so a skill in the
 * snapshot is unlocked for certain and a repeated get_info needs no write.
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
    async unlock(scopeKey, skill) {
      if (snapshots.get(scopeKey)?.has(skill) === true) return false;
      const first = await store.unlock(scopeKey, skill);
      snapshots.get(scopeKey)?.add(skill);
      return first;
    },
    async forget(skills) {
      snapshots.clear();
      return store.forget(skills);
    },
  };
}
