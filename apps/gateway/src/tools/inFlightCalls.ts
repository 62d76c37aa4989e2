/** Counts tool calls in progress, so that shutdown can wait for them. */
export interface InFlightCalls {
  readonly active: number;
  /** Marks a call as started; call the returned function when it ends. */
  begin(): () => void;
  /** Resolves when no call is in progress or the deadline (epoch ms) has passed. */
  drained(deadline: number): Promise<void>;
}

/** Creates an in-flight call counter. */
export function createInFlightCalls(): InFlightCalls {
  let active = 0;
  let waiters: Array<() => void> = [];
  return {
    get active() {
      return active;
    },
    begin() {
      active += 1;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        active -= 1;
        if (active === 0) {
          for (const wake of waiters) wake();
          waiters = [];
        }
      };
    },
    drained(deadline) {
      if (active === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
