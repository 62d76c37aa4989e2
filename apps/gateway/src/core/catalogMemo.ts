import type { Catalog } from '@skillgate/skills';

/**
 * A value computed once per (owner, key). Owners are what a catalog is made of (the catalog itself, a skill
 * entry, a registered value); a reload builds new ones, so the values change with them, and an owner no
 * longer referenced drops its values with it (WeakMap). The rule for where such a memo lives (in its module
 * only when the value is derived from the frozen owner alone; per gateway when config or policy enters it)
 * is docs/architecture.md, "Memos keyed by identity".
 */
export type OwnedMemo<O extends object, K, V> = (owner: O, key: K, build: () => V) => V;

/** Creates an owned memo. */
export function createOwnedMemo<O extends object, K, V>(): OwnedMemo<O, K, V> {
  const values = new WeakMap<O, Map<K, V>>();
  return (owner, key, build) => {
    let perOwner = values.get(owner);
    if (perOwner === undefined) {
      perOwner = new Map();
      values.set(owner, perOwner);
    }
    // `has`, not `!== undefined`: undefined is a value too (e.g. "no allow-list").
    if (perOwner.has(key)) return perOwner.get(key) as V;
    const value = build();
    perOwner.set(key, value);
    return value;
  };
}

/** A value computed once per (catalog, key). */
export type CatalogMemo<V> = OwnedMemo<Catalog, string, V>;

/** Creates a per-catalog memo. */
export function createCatalogMemo<V>(): CatalogMemo<V> {
  return createOwnedMemo<Catalog, string, V>();
}
