import { sep } from 'node:path';
import {
  type Catalog,
  type CatalogOptions,
  createCatalog,
  createCatalogInSlices,
  type LoadResult,
  type LoadSkillsOptions,
  loadSkills,
  type Skill,
  type SourceRoot,
  type UpstreamSnapshot,
} from '@skillgate/skills';

/** Holds the current catalog; a reload swaps it atomically, so in-flight calls keep the one they started with. */
export interface CatalogSource {
  readonly current: Catalog;
  /**
   * Rebuilds the catalog and swaps it in: with the skills read again from every root, or (`skills: false`,
   * an upstream change) from the skills read last time. At most one rebuild runs and one waits; a reload
   * asked for meanwhile joins the waiting one.
   */
  reload(options?: ReloadOptions): Promise<Catalog>;
  /** Called after every swap with the old and the new catalog. */
  onChange(listener: (previous: Catalog, next: Catalog) => void): void;
}

/** What a reload reads again. */
export interface ReloadOptions {
  /** Read the skill roots again (default true); false rebuilds only for the upstreams' new snapshots. */
  readonly skills?: boolean;
}

/** How skills are loaded and built into a catalog, from the config (compose/gatewaySettings.ts). */
export interface CatalogSettings {
  readonly load: LoadSkillsOptions;
  readonly build: Omit<CatalogOptions, 'problems' | 'upstreams'>;
  /** What the config alone says of each upstream, before any connection: names, no tools yet. */
  readonly configuredUpstreams: readonly UpstreamSnapshot[];
}

/**
 * Builds a catalog from the configured roots and upstreams (docs/disclosure.md for what it lists); without
 * snapshots of connected upstreams, from what the config says of them.
 */
export async function buildCatalog(
  settings: CatalogSettings,
  upstreams: readonly UpstreamSnapshot[] = settings.configuredUpstreams,
): Promise<Catalog> {
  const { skills, problems } = await loadSkills(settings.load);
  return createCatalog(skills, { ...settings.build, problems, upstreams });
}

const isInside = (file: string, dir: string): boolean => file === dir || file.startsWith(dir + sep);

/**
 * A skill that was served before and whose directory now only yields errors (a broken edit) keeps its
 * last good version, so one bad save does not take a skill away from every agent using it.
 */
function keepLastGood(previous: Catalog, loaded: LoadResult): LoadResult {
  const names = new Set(loaded.skills.map((s) => s.name));
  const kept: Skill[] = [];
  const problems = [...loaded.problems];
  for (const { skill, upstream } of previous.skills.values()) {
    // An upstream's auto skill comes from its snapshot, not from a folder: nothing to keep.
    if (upstream !== undefined || names.has(skill.name)) continue;
    // A SKILL.md that vanished is a warning in lenient mode, but mid-edit it is a broken skill too.
    const broken = loaded.problems.some(
      (p) => (p.severity === 'error' || p.code === 'SKILL_MD_MISSING') && isInside(p.file, skill.dir),
    );
    if (!broken) continue;
    kept.push(skill);
    problems.push({
      severity: 'warning',
      code: 'SKILL_KEPT_LAST_GOOD',
      file: skill.dir,
      skill: skill.name,
      reason: `the edited skill does not load; still serving its last good version`,
    });
  }
  return { skills: [...loaded.skills, ...kept], problems };
}

/** Options of createCatalogSource. */
export interface CatalogSourceOptions {
  /** The upstream pool's snapshots now (docs/upstreams.md); default: what the config says, no tools. */
  readonly upstreams?: () => readonly UpstreamSnapshot[];
  /** Called when a reload has read its skills and starts building the catalog from them. */
  readonly onBuilding?: (skills: number) => void;
  /** The fetched sources' verified folders now (a followed branch moves them); default: the settings'. */
  readonly sourceRoots?: () => readonly SourceRoot[];
}

/**
 * Loads the catalog once and returns a source that can reload it; every build (the first and each reload,
 * for a skill edit or an upstream change alike) takes the upstreams' snapshots of that moment.
 */
export async function createCatalogSource(
  settings: CatalogSettings,
  options: CatalogSourceOptions = {},
): Promise<CatalogSource> {
  const upstreams = options.upstreams ?? (() => settings.configuredUpstreams);
  const { sourceRoots } = options;
  const load = (): LoadSkillsOptions =>
    sourceRoots === undefined ? settings.load : { ...settings.load, sources: sourceRoots() };
  const first = await loadSkills(load());
  let current = createCatalog(first.skills, {
    ...settings.build,
    problems: first.problems,
    upstreams: upstreams(),
  });
  // The skills of the last read of the roots: an upstream change rebuilds from them, reading (and hashing)
  // no file again.
  let lastLoad: LoadResult = first;
  const listeners: Array<(previous: Catalog, next: Catalog) => void> = [];
  let running: Promise<Catalog> = Promise.resolve(current);
  // The one rebuild waiting for the running one, and whether it reads the roots again.
  let waiting: { promise: Promise<Catalog>; skills: boolean } | undefined;
  const reloadOnce = async (readSkills: boolean): Promise<Catalog> => {
    if (readSkills) lastLoad = keepLastGood(current, await loadSkills(load()));
    const { skills, problems } = lastLoad;
    options.onBuilding?.(skills.length);
    // In slices: every client is served while a large catalog is rebuilt (docs/limits.md, "Reloads").
    const next = await createCatalogInSlices(skills, {
      ...settings.build,
      problems,
      upstreams: upstreams(),
    });
    const previous = current;
    current = next;
    for (const listener of listeners) listener(previous, next);
    return next;
  };
  return {
    get current() {
      return current;
    },
    reload(reloadOptions = {}) {
      const readSkills = reloadOptions.skills ?? true;
      // Rebuilds run one after another, so a slow load never swaps in an older view over a newer one; a
      // storm of changes (an upstream whose list changes every few ms) makes one running and one waiting
      // rebuild, never a queue.
      if (waiting !== undefined) {
        waiting.skills ||= readSkills;
        return waiting.promise;
      }
      const next: { promise: Promise<Catalog>; skills: boolean } = {
        promise: Promise.resolve(current),
        skills: readSkills,
      };
      const start = (): Promise<Catalog> => {
        waiting = undefined;
        return reloadOnce(next.skills);
      };
      next.promise = running.then(start, start);
      waiting = next;
      running = next.promise;
      return next.promise;
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}
