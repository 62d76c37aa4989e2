import type { SkillgateConfig } from '@skillgate/config';
import { type Catalog, createCatalog, loadSkills } from '@skillgate/skills';

/** Holds the current catalog; a reload swaps it atomically, so in-flight calls keep the one they started with. */
export interface CatalogSource {
  readonly current: Catalog;
  /** Reloads every root and swaps the catalog in. */
  reload(): Promise<Catalog>;
  /** Called after every swap with the old and the new catalog. */
  onChange(listener: (previous: Catalog, next: Catalog) => void): void;
}

/** Builds a catalog from the configured roots (DESIGN §2–§3). */
export async function buildCatalog(config: SkillgateConfig): Promise<Catalog> {
  const { skills, problems } = await loadSkills({ roots: config.skills.roots, validation: config.skills.validation });
  return createCatalog(skills, {
    maxNameLength: config.tools.max_name_length,
    asyncEnabled: config.skills.async_enabled,
    maxTimeoutSeconds: config.scripts.max_timeout,
    problems,
  });
}

/** Loads the catalog once and returns a source that can reload it. */
export async function createCatalogSource(config: SkillgateConfig): Promise<CatalogSource> {
  let current = await buildCatalog(config);
  const listeners: Array<(previous: Catalog, next: Catalog) => void> = [];
  return {
    get current() {
      return current;
    },
    async reload() {
      const next = await buildCatalog(config);
      const previous = current;
      current = next;
      for (const listener of listeners) listener(previous, next);
      return next;
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
