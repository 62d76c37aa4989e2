import type { Catalog } from '@skillgate/skills';

/** A value computed once per (catalog, key); a reload builds a new catalog, so the values change with it. */
export type CatalogMemo<V> = (catalog: Catalog, key: string, build: () => V) => V;

/** Creates a per-catalog memo; a catalog no longer referenced drops its values with it (WeakMap). */
export function createCatalogMemo<V>(): CatalogMemo<V> {
  const values = new WeakMap<Catalog, Map<string, V>>();
  return (catalog, key, build) => {
    let perCatalog = values.get(catalog);
    if (perCatalog === undefined) {
      perCatalog = new Map();
      values.set(catalog, perCatalog);
    }
    // `has`, not `!== undefined`: undefined is a value too (e.g. "no allow-list").
    if (perCatalog.has(key)) return perCatalog.get(key) as V;
    const value = build();
    perCatalog.set(key, value);
    return value;
  };
}
