import type { Catalog } from '@skillgate/skills';
import type { UpstreamPool } from '@skillgate/upstreams';
import type { FastifyBaseLogger } from 'fastify';
import type { CatalogSource } from '../core/catalogSource.js';
import type { Metrics } from '../observability/metrics.js';
import { type CatalogChangeTargets, notifyCatalogChange } from '../reload/notifyCatalogChange.js';
import { watchSkillRoots } from '../reload/skillWatcher.js';

// Upstream changes (a reconnect, a list_changed burst) within this window make one catalog rebuild.
const UPSTREAM_REBUILD_DEBOUNCE_MS = 100;
// And upstream changes rebuild the catalog at most this often, however many upstreams keep changing
// (docs/upstreams.md, "A list that keeps changing").
const UPSTREAM_REBUILD_MIN_INTERVAL_MS = 1000;

/** Options of followCatalogChanges. */
export interface FollowCatalogChangesOptions {
  readonly catalogs: CatalogSource;
  readonly upstreams: Pick<UpstreamPool, 'onChange'>;
  /** The skill roots to watch (`skills.watch`), or undefined to reload only on upstream changes. */
  readonly watch: { readonly roots: readonly string[]; readonly debounceMs: number } | undefined;
  /** Who hears of a new catalog. */
  readonly notify: CatalogChangeTargets;
  readonly metrics: Metrics;
  readonly log: FastifyBaseLogger;
}

/** A running followCatalogChanges. */
export interface CatalogFollower {
  /** Settles once the skill roots are watched (at once without `skills.watch`). */
  readonly watching: Promise<void>;
  /** Stops following skill roots and upstreams. */
  stop(): Promise<void>;
}

/**
 * Rebuilds the catalog when a skill root changes on disk or an upstream's tools or state change, and tells
 * sessions and listen streams of each new catalog (docs/disclosure.md).
 */
export function followCatalogChanges(options: FollowCatalogChangesOptions): CatalogFollower {
  const { catalogs, metrics, log } = options;
  catalogs.onChange((previous, next) => {
    metrics.inc('skillgate_catalog_reloads_total', { outcome: 'ok' });
    // Only what is new since the previous catalog: a rebuild storm must not re-log every standing problem
    // (1,500 clashing upstream tool names grew the log by 83 MB in 10 s).
    const known = new Set(previous.problems.map(problemKey));
    for (const problem of next.problems) {
      if (!known.has(problemKey(problem)))
        log.warn({ problem }, `skill problem after reload: ${problem.reason}`);
    }
    notifyCatalogChange(options.notify, previous, next).then(
      (notified) => log.info({ skills: next.skills.size, notified }, 'catalog reloaded'),
      (error: unknown) => log.error({ err: error }, 'reload notification failed'),
    );
  });
  const reload = (failure: string, skills: boolean) => {
    catalogs.reload({ skills }).catch((error: unknown) => {
      metrics.inc('skillgate_catalog_reloads_total', { outcome: 'error' });
      log.error({ err: error }, failure);
    });
  };
  // An upstream's new tools or state rebuild the catalog like a skill reload, with the same notifications.
  let rebuildTimer: NodeJS.Timeout | undefined;
  let lastRebuildAt = Number.NEGATIVE_INFINITY;
  const stopFollowingUpstreams = options.upstreams.onChange(() => {
    if (rebuildTimer !== undefined) return;
    const now = performance.now();
    const wait = Math.max(
      UPSTREAM_REBUILD_DEBOUNCE_MS,
      lastRebuildAt + UPSTREAM_REBUILD_MIN_INTERVAL_MS - now,
    );
    rebuildTimer = setTimeout(() => {
      rebuildTimer = undefined;
      lastRebuildAt = performance.now();
      reload('catalog rebuild after an upstream change failed; keeping the previous catalog', false);
    }, wait);
  });
  const { watch } = options;
  const watcher =
    watch === undefined
      ? undefined
      : watchSkillRoots({
          roots: watch.roots,
          debounceMs: watch.debounceMs,
          onChange: () => reload('catalog reload failed; keeping the previous catalog', true),
          onError: (error) => log.warn({ err: error }, 'skill watcher error'),
        });
  return {
    watching: watcher?.ready ?? Promise.resolve(),
    async stop() {
      stopFollowingUpstreams();
      clearTimeout(rebuildTimer);
      await watcher?.stop();
    },
  };
}

// What makes a problem the same one in the next catalog.
function problemKey(problem: Catalog['problems'][number]): string {
  return `${problem.severity}\u0000${problem.code}\u0000${problem.file}\u0000${problem.skill ?? ''}\u0000${problem.reason}`;
}
