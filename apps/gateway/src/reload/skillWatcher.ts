import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { AsyncSubscription, subscribe as Subscribe } from '@parcel/watcher';

/** Options of watchSkillRoots. */
export interface SkillWatcherOptions {
  readonly roots: readonly string[];
  readonly debounceMs: number;
  /** Called once per burst of changes, after the burst has been quiet for debounceMs. */
  readonly onChange: () => void;
  readonly onError: (error: Error) => void;
}

/** A running watch of the skill roots. */
export interface SkillWatcher {
  /** Settles once every root is watched (a root that cannot be is reported to onError): a change is seen. */
  readonly ready: Promise<void>;
  /** Stops watching. */
  stop(): Promise<void>;
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The folders that symlinks directly in a root lead to: the skill loader follows those (a linked skill). */
async function linkedFolders(roots: readonly string[]): Promise<Set<string>> {
  const targets = new Set<string>();
  for (const root of roots) {
    const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isSymbolicLink() || entry.name.startsWith('.')) continue;
      const target = await realpath(join(root, entry.name)).catch(() => undefined);
      if (target !== undefined && (await stat(target).catch(() => undefined))?.isDirectory() === true)
        targets.add(target);
    }
  }
  return targets;
}

/**
 * Watches the skill roots recursively (docs/limits.md, "Reloads"), with @parcel/watcher: it walks the folders
 * and follows new ones in its own thread and hands over the events in batches, so a burst of changes costs
 * the event loop a callback per batch. Node's `fs.watch(root, { recursive: true })` walks the tree on Linux
 * in JavaScript with readdirSync and statSync, one watch per file, and reads the whole root again on every
 * event in it: 1,000 skill folders moved into a watched root held the event loop for 1.3–2.3 s in one piece
 * (every client's p99 1.3 s); chokidar, asynchronous but one watch and stat per file, still 0.5–0.9 s.
 * @parcel/watcher does not follow symlinks, so a skill linked into a root is watched where its link leads,
 * as the loader reads it there; the links are looked at again after every change.
 */
export function watchSkillRoots(options: SkillWatcherOptions): SkillWatcher {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // Every watched folder (the roots and the linked skills' folders) and its subscription.
  const watched = new Map<string, Promise<AsyncSubscription | undefined>>();
  const onEvents = (error: Error | null) => {
    if (error !== null) return options.onError(asError(error));
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      options.onChange();
      followLinks().catch((failure: unknown) => options.onError(asError(failure)));
    }, options.debounceMs);
  };
  let subscribe: typeof Subscribe | undefined;
  const watch = (folder: string) => {
    if (subscribe === undefined || stopped || watched.has(folder)) return;
    const subscription = subscribe(folder, onEvents).catch((error: unknown) => {
      options.onError(asError(error));
      return undefined;
    });
    watched.set(folder, subscription);
  };
  const followLinks = async () => {
    const targets = await linkedFolders(options.roots);
    if (stopped) return;
    for (const target of targets) watch(target);
    for (const [folder, subscription] of watched) {
      if (options.roots.includes(folder) || targets.has(folder)) continue;
      watched.delete(folder);
      await (await subscription)?.unsubscribe();
    }
  };
  // Loaded when a gateway watches: its native binary is needed only then.
  const ready = import('@parcel/watcher').then(
    async (watcher) => {
      subscribe = watcher.subscribe;
      for (const root of options.roots) watch(root);
      await followLinks();
      await Promise.all(watched.values());
    },
    (error: unknown) => options.onError(asError(error)),
  );
  return {
    ready,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ready;
      const subscriptions = await Promise.all(watched.values());
      watched.clear();
      await Promise.all(subscriptions.map((s) => s?.unsubscribe()));
    },
  };
}
