import { RunnerError } from './runnerError.js';

/** Concurrency limits of a SlotPool. */
export interface SlotLimits {
  readonly maxConcurrent: number;
  readonly maxConcurrentPerPrincipal: number;
  readonly maxQueue: number;
  readonly queueTimeoutMs: number;
  /** How refusals name the slots and their keys; default the script runner's. */
  readonly wording?: SlotWording;
}

/** What a pool's refusals call its slots and the config keys of its caps. */
export interface SlotWording {
  /** Plural noun of what holds a slot ("scripts", "calls to upstream github"). */
  readonly runs: string;
  /** The key of the global cap. */
  readonly maxKey: string;
  /** The key of the per-principal cap. */
  readonly perPrincipalKey: string;
}

const SCRIPT_WORDING: SlotWording = {
  runs: 'scripts',
  maxKey: 'scripts.max_concurrent',
  perPrincipalKey: 'scripts.max_concurrent_per_principal',
};

/**
 * Hands out slots (script runs, upstream calls) within a global and a per-principal cap; the rest wait in a
 * bounded FIFO queue, and the first waiter that fits goes next.
 */
export interface SlotPool {
  /** Resolves with an idempotent release function once a slot is held. */
  acquire(principal: string, signal?: AbortSignal): Promise<() => void>;
  readonly active: number;
  readonly queued: number;
  /** Rejects every waiting run with RUNNER_CLOSED and refuses new ones. */
  close(): void;
}

interface Waiter {
  readonly principal: string;
  readonly grant: () => void;
  readonly fail: (error: RunnerError) => void;
}

/** Creates a slot pool; holders must call the release function exactly when their script is gone. */
export function createSlotPool(limits: SlotLimits): SlotPool {
  const perPrincipal = new Map<string, number>();
  const queue: Waiter[] = [];
  let active = 0;
  let closed = false;

  const fits = (principal: string): boolean =>
    active < limits.maxConcurrent && (perPrincipal.get(principal) ?? 0) < limits.maxConcurrentPerPrincipal;

  function take(principal: string): () => void {
    active++;
    perPrincipal.set(principal, (perPrincipal.get(principal) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      active--;
      const left = (perPrincipal.get(principal) ?? 1) - 1;
      if (left === 0) perPrincipal.delete(principal);
      else perPrincipal.set(principal, left);
      pump();
    };
  }

  // The first waiter that fits goes next, so one principal at its own cap does not block the others.
  function pump(): void {
    for (let i = 0; i < queue.length && active < limits.maxConcurrent; ) {
      const waiter = queue[i];
      if (waiter !== undefined && fits(waiter.principal)) {
        queue.splice(i, 1);
        waiter.grant();
      } else {
        i++;
      }
    }
  }

  const wording = limits.wording ?? SCRIPT_WORDING;
  function limitReached(principal: string): string {
    return active >= limits.maxConcurrent
      ? `all ${limits.maxConcurrent} slots for ${wording.runs} are in use (${wording.maxKey})`
      : `principal "${principal}" already has ${limits.maxConcurrentPerPrincipal} ${wording.runs} running (${wording.perPrincipalKey})`;
  }

  return {
    acquire(principal, signal) {
      if (closed)
        return Promise.reject(new RunnerError('RUNNER_CLOSED', 'the script runner is shutting down'));
      if (signal?.aborted) return Promise.reject(aborted());
      if (fits(principal)) return Promise.resolve(take(principal));
      if (queue.length >= limits.maxQueue) {
        const queueNote =
          limits.maxQueue === 0 ? 'queueing is off' : `the queue is full (${limits.maxQueue} waiting)`;
        return Promise.reject(new RunnerError('RUNNER_BUSY', `${limitReached(principal)} and ${queueNote}`));
      }
      return new Promise((resolve, reject) => {
        const leave = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          const index = queue.indexOf(waiter);
          if (index >= 0) queue.splice(index, 1);
        };
        const waiter: Waiter = {
          principal,
          grant: () => {
            leave();
            resolve(take(principal));
          },
          fail: (error) => {
            leave();
            reject(error);
          },
        };
        const onAbort = (): void => waiter.fail(aborted());
        const timer = setTimeout(() => {
          waiter.fail(
            new RunnerError(
              'RUNNER_BUSY',
              `no slot for ${wording.runs} freed within ${limits.queueTimeoutMs} ms: ${limitReached(principal)}`,
            ),
          );
        }, limits.queueTimeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(waiter);
      });
    },
    get active() {
      return active;
    },
    get queued() {
      return queue.length;
    },
    close() {
      closed = true;
      for (const waiter of [...queue]) {
        waiter.fail(new RunnerError('RUNNER_CLOSED', 'the script runner shut down while the run was queued'));
      }
    },
  };
}

function aborted(): RunnerError {
  return new RunnerError('RUNNER_ABORTED', 'the run was cancelled before the script started');
}
