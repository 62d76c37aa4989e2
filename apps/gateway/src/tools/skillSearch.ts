import {
  buildSkillIndexInSlices,
  type Catalog,
  type SkillIndex,
  type SkillQuery,
  type SkillSearchPage,
} from '@skillgate/skills';

/** Options of createSkillSearch. */
export interface SkillSearchOptions {
  /** Indexes kept per catalog (one per distinct allow-list that searched); the least recently used goes. */
  readonly maxIndexesPerCatalog?: number;
  /** Told when an index build starts: ahead of searches (`warm`) or for the first search of an allow-list. */
  readonly onBuild?: (trigger: 'warm' | 'search') => void;
}

/** Search over exactly the skills one allow-list may use (docs/disclosure.md, search_skills). */
export interface SkillSearch {
  /**
   * A page of results among the `allowed` skills of the catalog (undefined: every skill), or undefined
   * for a cursor of another query. Only those skills are in the index: a hidden one never changes a
   * result, its order or a score.
   */
  search(
    catalog: Catalog,
    allowed: ReadonlySet<string> | undefined,
    query: SkillQuery,
  ): Promise<SkillSearchPage | undefined>;
  /** Builds the every-skill index of a catalog ahead of the first search (after a load or reload). */
  warm(catalog: Catalog): Promise<void>;
}

const DEFAULT_MAX_INDEXES = 16;

/**
 * One index per (catalog, distinct allow-list), built lazily in slices and kept in a small LRU per catalog:
 * BM25 scores depend on every document of the index (term rarity, average field length), so a shared index
 * filtered afterwards would let hidden skills move visible ones. Allow-lists with the same skills share one.
 */
export function createSkillSearch(options: SkillSearchOptions = {}): SkillSearch {
  const max = options.maxIndexesPerCatalog ?? DEFAULT_MAX_INDEXES;
  const perCatalog = new WeakMap<Catalog, Map<string, Promise<SkillIndex>>>();
  // The content key of an allow-list Set (the access policy keeps one Set per grant set and catalog).
  const keys = new WeakMap<ReadonlySet<string>, string>();

  const keyOf = (catalog: Catalog, allowed: ReadonlySet<string> | undefined): string => {
    if (allowed === undefined) return '*';
    let key = keys.get(allowed);
    if (key === undefined) {
      key = `=${[...catalog.skills.keys()].filter((name) => allowed.has(name)).join('\n')}`;
      keys.set(allowed, key);
    }
    return key;
  };

  const indexOf = (
    catalog: Catalog,
    allowed: ReadonlySet<string> | undefined,
    trigger: 'warm' | 'search',
  ): Promise<SkillIndex> => {
    let indexes = perCatalog.get(catalog);
    if (indexes === undefined) {
      indexes = new Map();
      perCatalog.set(catalog, indexes);
    }
    const key = keyOf(catalog, allowed);
    let index = indexes.get(key);
    if (index !== undefined) {
      // Most recently used last.
      indexes.delete(key);
      indexes.set(key, index);
      return index;
    }
    const entries = [...catalog.skills.values()].filter(
      (e) => allowed === undefined || allowed.has(e.skill.name),
    );
    options.onBuild?.(trigger);
    index = buildSkillIndexInSlices(entries);
    indexes.set(key, index);
    for (const oldest of indexes.keys()) {
      if (indexes.size <= max) break;
      indexes.delete(oldest);
    }
    return index;
  };

  return {
    async search(catalog, allowed, query) {
      return (await indexOf(catalog, allowed, 'search')).search(query);
    },
    async warm(catalog) {
      await indexOf(catalog, undefined, 'warm');
    },
  };
}
