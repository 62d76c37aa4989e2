import { type FSWatcher, watch } from 'node:fs';

/** Options of watchSkillRoots. */
export interface SkillWatcherOptions {
  readonly roots: readonly string[];
  readonly debounceMs: number;
  /** Called once per burst of changes, after the burst has been quiet for debounceMs. */
  readonly onChange: () => void;
  readonly onError: (error: Error) => void;
}

/** Watches the skill roots recursively; returns a function that stops watching. */
export function watchSkillRoots(options: SkillWatcherOptions): () => void {
  let timer: NodeJS.Timeout | undefined;
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(options.onChange, options.debounceMs);
  };
  const watchers: FSWatcher[] = [];
  for (const root of options.roots) {
    try {
      const watcher = watch(root, { recursive: true }, fire);
      watcher.on('error', options.onError);
      watchers.push(watcher);
    } catch (error) {
      options.onError(error instanceof Error ? error : new Error(String(error)));
    }
  }
  return () => {
    clearTimeout(timer);
    for (const watcher of watchers) watcher.close();
  };
}
