/** A counting semaphore whose waiters give up at a deadline or on abort. */
export interface CallSlots {
  /** Resolves with a release function once a slot is free, or with undefined at the deadline or on abort. */
  acquire(deadline: number, signal?: AbortSignal): Promise<(() => void) | undefined>;
  /** Calls in flight. */
  readonly busy: number;
  /** Calls waiting for a slot. */
  readonly waiting: number;
}

/** Slots for `max` calls at once; the rest wait in arrival order. */
export function createCallSlots(max: number): CallSlots {
  let busy = 0;
  const queue: ((release: () => void) => void)[] = [];
  const release = (): void => {
    const next = queue.shift();
    if (next === undefined) busy -= 1;
    else next(once(release));
  };
  return {
    get busy() {
      return busy;
    },
    get waiting() {
      return queue.length;
    },
    acquire(deadline, signal) {
      if (busy < max) {
        busy += 1;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve) => {
        const grant = (releaseSlot: () => void): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(releaseSlot);
        };
        const giveUp = (): void => {
          const at = queue.indexOf(grant);
          if (at >= 0) queue.splice(at, 1);
          clearTimeout(timer);
          signal?.removeEventListener('abort', giveUp);
          resolve(undefined);
        };
        const timer = setTimeout(giveUp, Math.max(0, deadline - Date.now()));
        signal?.addEventListener('abort', giveUp, { once: true });
        queue.push(grant);
      });
    },
  };
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
