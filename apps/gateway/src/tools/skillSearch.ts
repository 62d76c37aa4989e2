import {
  buildSkillIndexInSlices,
  type Catalog,
  type SkillIndex,
  type SkillQuery,
  type SkillSearchPage,
} from '@skillgate/skills';

/** Options of createSkillSearch. */
export interface SkillSearchOptions {
  /** Told when a catalog's index build starts: ahead of searches (`warm`) or for its first search. */
  readonly onBuild?: (trigger: 'warm' | 'search') => void;
}

/** Search over exactly the skills one allow-list may use (docs/disclosure.md, search_skills). */
export interface SkillSearch {
  /**
   * A page of results among the `allowed` skills of the catalog (undefined: every skill), or undefined
   * for a cursor of another query. Ranked with the statistics of those skills alone: a hidden one never
   * changes a result, its order or a score.
   */
  search(
    catalog: Catalog,
    allowed: ReadonlySet<string> | undefined,
    query: SkillQuery,
  ): Promise<SkillSearchPage | undefined>;
  /** Builds the catalog's index ahead of the first search (after a load or reload). */
  warm(catalog: Catalog): Promise<void>;
}

/**
 * One index per catalog, built once in slices (ahead of searches, or on the first) and searched as every
 * allow-list: each search counts its allow-list's BM25 statistics from the shared postings (skillIndex.ts),
 * so no number of allow-lists ever builds another index (docs/decisions.md, "One index per catalog").
 */
export function createSkillSearch(options: SkillSearchOptions = {}): SkillSearch {
  const indexes = new WeakMap<Catalog, Promise<SkillIndex>>();

  const indexOf = (catalog: Catalog, trigger: 'warm' | 'search'): Promise<SkillIndex> => {
    let index = indexes.get(catalog);
    if (index === undefined) {
      options.onBuild?.(trigger);
      index = buildSkillIndexInSlices([...catalog.skills.values()]);
      indexes.set(catalog, index);
    }
    return index;
  };

  return {
    async search(catalog, allowed, query) {
      return (await indexOf(catalog, 'search')).search(query, allowed);
    },
    async warm(catalog) {
      await indexOf(catalog, 'warm');
    },
  };
}
