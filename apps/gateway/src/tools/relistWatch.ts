/** What the watch learned about a session's client at the end of one hold. */
export type RelistOutcome = 'relisted' | 'timeout';

/**
 * Whether a 2025-era session's client re-lists tools after list_changed, learned from what it does: a
 * get_info result that unlocked tools is held until the session's next tools/list has been answered, so
 * that a host which builds its model's next request from the list it holds has the unlocked tools by then
 * (docs/clients.md, "The turn after get_info").
 */
export interface RelistWatch {
  /**
   * Called just before list_changed is sent; returns the wait for the tools/list that answers it, at most
   * the bound. A session that let one bound pass without re-listing is never held again.
   */
  expect(): () => Promise<void>;
  /** A tools/list that began at `generation` (from `generation()`) has been answered. */
  listed(generation: number): void;
  /** Taken when a tools/list begins: only a list computed after the unlock answers the wait. */
  generation(): number;
  /** false once the session let a bound pass without re-listing; true once it re-listed; else undefined. */
  readonly relists: boolean | undefined;
}

/** Options of createRelistWatch. */
export interface RelistWatchOptions {
  /** The most a get_info result waits for the re-list (`sessions.relist_wait_ms`); 0 holds nothing. */
  readonly waitMs: number;
  /**
   * How long the result still waits once the re-list is answered (`sessions.relist_grace_ms`): hosts apply
   * a new list a little later (Claude Code batches MCP updates on a 16 ms timer; Gemini CLI converts the
   * schemas first), and build the model's next request as soon as the tool result is in.
   */
  readonly graceMs: number;
  /** Each hold's end, once (metrics, and the log line of a session found not to re-list). */
  readonly onOutcome?: (outcome: RelistOutcome, heldMs: number) => void;
}

interface Waiter {
  readonly armedAt: number;
  readonly resolve: () => void;
}

const NO_WAIT = async (): Promise<void> => {};

/** Creates the watch of one session (state lives with the session's live objects, not in the store). */
export function createRelistWatch(options: RelistWatchOptions): RelistWatch {
  let relists: boolean | undefined;
  let generation = 0;
  let waiters: Waiter[] = [];
  return {
    get relists() {
      return relists;
    },
    generation: () => generation,
    expect() {
      if (options.waitMs <= 0 || relists === false) return NO_WAIT;
      generation += 1;
      const armedAt = generation;
      const started = performance.now();
      const answered = new Promise<void>((resolve) => waiters.push({ armedAt, resolve }));
      return async () => {
        let timer: NodeJS.Timeout | undefined;
        // The grace is on top of the bound: a re-list answered just before the bound still gets it.
        const timedOut = new Promise<RelistOutcome>((resolve) => {
          timer = setTimeout(() => resolve('timeout'), options.waitMs + options.graceMs);
        });
        const outcome = await Promise.race([answered.then((): RelistOutcome => 'relisted'), timedOut]);
        clearTimeout(timer);
        if (outcome === 'timeout') {
          waiters = waiters.filter((w) => w.armedAt !== armedAt);
          relists = false;
        } else if (relists === undefined) relists = true;
        options.onOutcome?.(outcome, Math.round(performance.now() - started));
      };
    },
    listed(seen) {
      if (waiters.length === 0) return;
      const ready = waiters.filter((w) => w.armedAt <= seen);
      if (ready.length === 0) return;
      waiters = waiters.filter((w) => w.armedAt > seen);
      // After the answer is written (the SDK writes a handler's result a few microtasks after it returns), and
      // after the host has had its grace to apply it.
      const release = () => {
        for (const w of ready) w.resolve();
      };
      if (options.graceMs > 0) setTimeout(release, options.graceMs);
      else setImmediate(release);
    },
  };
}
