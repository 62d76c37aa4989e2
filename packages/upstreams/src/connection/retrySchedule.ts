/** Options of createRetrySchedule. */
export interface RetryScheduleOptions {
  /** The first delay, and the delay again once a connection stayed up for stableMs. */
  readonly initialMs: number;
  /** The cap the delay doubles up to. */
  readonly maxMs: number;
  /** How long a connection must stay up before the delay goes back to initialMs (default 30 s). */
  readonly stableMs?: number;
  /** What a due retry runs (a new connect attempt). */
  readonly run: () => void;
}

/** When an upstream that went down is tried again. */
export interface RetrySchedule {
  /** The delay the next schedule() waits (logged with the failure). */
  readonly nextDelayMs: number;
  /** Arms one retry after the current delay, then doubles the delay; nothing while one is armed or after stop(). */
  schedule(): void;
  /**
   * After a successful connect: once the connection stayed up for stableMs, the next failure waits the
   * initial delay again. A server that crashes soon after each handshake keeps doubling its delay.
   */
  connected(): void;
  /** For good (the connection closes): clears an armed retry. */
  stop(): void;
}

/** Reconnect backoff of one upstream: doubling delays up to a cap, at most one retry armed. */
export function createRetrySchedule(options: RetryScheduleOptions): RetrySchedule {
  let delay = options.initialMs;
  let timer: NodeJS.Timeout | undefined;
  let stable: NodeJS.Timeout | undefined;
  let stopped = false;
  const unstable = (): void => {
    if (stable !== undefined) clearTimeout(stable);
    stable = undefined;
  };
  return {
    get nextDelayMs() {
      return delay;
    },
    schedule() {
      unstable();
      if (stopped || timer !== undefined) return;
      const wait = delay;
      delay = Math.min(delay * 2, options.maxMs);
      timer = setTimeout(() => {
        timer = undefined;
        options.run();
      }, wait);
      // A pending retry must not keep the gateway (or a CLI command) alive.
      timer.unref();
    },
    connected() {
      unstable();
      stable = setTimeout(() => {
        stable = undefined;
        delay = options.initialMs;
      }, options.stableMs ?? 30_000);
      stable.unref();
    },
    stop() {
      stopped = true;
      unstable();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
