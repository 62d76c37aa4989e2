/** Relistings of one upstream, at most one waiting and one started per interval. */
export interface RelistThrottle {
  /**
   * Asks for a relisting: `relist` runs once the interval since the last one passed, and returns whether it
   * started one (a stale connection starts none). A request while one waits is seen by that one.
   */
  request(relist: () => boolean): void;
  /** Drops the waiting relisting (close). */
  cancel(): void;
}

/**
 * An upstream that changes its list continuously is listed again at most once per `minIntervalMs`: each
 * relisting parses every tool and rebuilds the catalog (docs/upstreams.md, "A list that keeps changing").
 */
export function createRelistThrottle(minIntervalMs: number): RelistThrottle {
  let timer: NodeJS.Timeout | undefined;
  let lastAt = Number.NEGATIVE_INFINITY;
  return {
    request(relist) {
      if (timer !== undefined) return;
      const wait = Math.max(0, lastAt + minIntervalMs - performance.now());
      timer = setTimeout(() => {
        timer = undefined;
        const now = performance.now();
        if (relist()) lastAt = now;
      }, wait);
    },
    cancel() {
      clearTimeout(timer);
    },
  };
}
