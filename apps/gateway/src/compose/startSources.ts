import type { SourceRoot } from '@skillgate/skills';
import {
  isGitSource,
  isRemoteBranch,
  type LockEntry,
  type MaterializedSources,
  materializeSources,
  resolveRemoteRef,
  type SharedPins,
  type SourceReadiness,
} from '@skillgate/sources';
import type { FastifyBaseLogger } from 'fastify';
import { sourcesOptions } from './sourcesOptions.js';
import type { SourcesSettings } from './sourcesSettings.js';

/** The fetched sources of a running gateway. */
export interface GatewaySources {
  /** The verified folders served now. */
  roots(): readonly SourceRoot[];
  /** Each source's state for /readyz. */
  readiness(): readonly SourceReadiness[];
  /** Starts following branch heads (`sources.follow.interval_seconds`); `reload` swaps a new catalog in. */
  follow(reload: () => Promise<unknown>): void;
  stop(): void;
}

/** Options of startSources. */
export interface StartSourcesOptions {
  readonly settings: SourcesSettings;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: FastifyBaseLogger;
  /** Where replicas without a lock file agree on a commit (the state backend). */
  readonly shared?: SharedPins;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Fetches and verifies `sources.list` before the first catalog is built (a source that cannot be served
 * fails the start, naming it), then checks each git remote in the background: a remote that cannot be
 * reached is a warning while the verified cache serves (docs/sources.md).
 */
export async function startSources(options: StartSourcesOptions): Promise<GatewaySources> {
  const { settings, env, log } = options;
  const base = {
    ...sourcesOptions(settings, env),
    onInfo: (line: string) => log.info(line),
    onWarning: (line: string) => log.warn(line),
    ...(options.shared === undefined ? {} : { shared: options.shared }),
  };
  let current: MaterializedSources = await materializeSources(base);
  const extra = new Map<string, { behind?: boolean; last_error?: string }>();
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;
  const deadline = () => Date.now() + base.timeoutMs;
  const context = () => ({ env, deadline: deadline(), limits: base.limits, workDir: base.cacheDir });
  const entryOf = (id: string): LockEntry | undefined => current.lock.sources.find((e) => e.id === id);

  // One look at each git remote after the start: `behind` for /readyz, and a warning when it is unreachable.
  const checkRemotes = async (): Promise<void> => {
    for (const source of base.sources) {
      if (!isGitSource(source) || stopped) continue;
      const pinned = entryOf(source.id)?.commit;
      try {
        const head = await resolveRemoteRef(source, context());
        extra.set(source.id, { behind: head !== pinned });
      } catch (error) {
        extra.set(source.id, { last_error: messageOf(error) });
        log.warn(`${messageOf(error)}; serving the locked commit ${pinned} from the verified cache`);
      }
    }
  };
  if (current.statuses.some((s) => s.kind === 'git' && s.state === 'cached')) void checkRemotes();

  return {
    roots: () => current.roots,
    readiness: () => current.statuses.map((s) => ({ ...s, ...extra.get(s.id) })),
    follow(reload) {
      const interval = settings.followIntervalSeconds;
      if (interval <= 0) return;
      let running = false;
      const followed = base.sources.filter(isGitSource);
      const branches = new Map<string, boolean>();
      const poll = async (): Promise<void> => {
        const moved: string[] = [];
        for (const source of followed) {
          try {
            let isBranch = branches.get(source.id);
            if (isBranch === undefined) {
              isBranch = await isRemoteBranch(source, context());
              branches.set(source.id, isBranch);
            }
            if (!isBranch) continue;
            const head = await resolveRemoteRef(source, context());
            extra.set(source.id, { behind: false });
            if (head !== entryOf(source.id)?.commit) moved.push(source.id);
          } catch (error) {
            extra.set(source.id, { last_error: messageOf(error) });
            log.warn(`follow: ${messageOf(error)}; still serving ${entryOf(source.id)?.commit}`);
          }
        }
        if (moved.length === 0 || stopped) return;
        try {
          current = await materializeSources(base, { upgrade: moved });
          for (const id of moved)
            log.info(`follow: source "${id}" moved to ${entryOf(id)?.commit}; reloading`);
          await reload();
        } catch (error) {
          log.warn(`follow: ${messageOf(error)}; keeping the previous commit`);
        }
      };
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        poll().finally(() => {
          running = false;
        });
      }, interval * 1000);
      timer.unref();
      timers.push(timer);
    },
    stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
    },
  };
}
