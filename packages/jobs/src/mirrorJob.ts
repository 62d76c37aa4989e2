import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningScript, ScriptOutput } from '@skillgate/runner';
import { type JobEnd, type JobStore, StateError } from '@skillgate/state';

/** Options of mirrorJob. */
export interface MirrorJobOptions {
  /** How often the output so far is written to the store (default 500 ms). */
  readonly intervalMs?: number;
  /** Receives store failures (the script keeps running; the next write tries again). */
  readonly onError?: (error: unknown) => void;
}

// Ask the runner for every kept line: the store keeps a byte-bounded tail, and status reads cut by lines.
const ALL_LINES = Number.MAX_SAFE_INTEGER;

const sameOutput = (a: ScriptOutput | undefined, b: ScriptOutput): boolean =>
  a !== undefined && a.stdout_bytes === b.stdout_bytes && a.stderr_bytes === b.stderr_bytes;

/** Records the end, retrying while the store is unavailable: a job must not stay `running` after it ended. */
async function recordEnd(
  store: JobStore,
  jobId: string,
  end: JobEnd,
  report: (e: unknown) => void,
): Promise<void> {
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    try {
      await store.finish(jobId, end);
      return;
    } catch (error) {
      report(error);
      // A closed store belongs to a replica shutting down: its jobs are reported lost instead.
      if (!(error instanceof StateError) || error.code !== 'STATE_UNAVAILABLE') return;
      await sleep(delay);
    }
  }
}

/**
 * Keeps a started job's record current while its script runs on this replica: writes new output every
 * interval, stops the script when a cancel arrives (published to this replica, or seen on the record), and
 * records how it ended, retrying while the store is unavailable. Resolves with that end once it is recorded
 * (or the store was closed).
 */
export async function mirrorJob(
  store: JobStore,
  jobId: string,
  running: RunningScript,
  options: MirrorJobOptions = {},
): Promise<JobEnd | undefined> {
  const report = options.onError ?? (() => {});
  const off = store.onCancel((id) => {
    if (id === jobId) running.cancel();
  });
  let written: ScriptOutput | undefined;
  let busy = false;
  const tick = (): void => {
    if (busy) return;
    busy = true;
    const output = running.output(ALL_LINES);
    const changed = !sameOutput(written, output);
    store
      .progress(jobId, changed ? output : undefined)
      .then(({ cancelRequested }) => {
        if (changed) written = output;
        if (cancelRequested) running.cancel();
      }, report)
      .finally(() => {
        busy = false;
      });
  };
  const timer = setInterval(tick, options.intervalMs ?? 500);
  timer.unref();
  try {
    const result = await running.done;
    clearInterval(timer);
    const state = result.timed_out ? 'timed_out' : running.cancelled ? 'cancelled' : 'exited';
    const end: JobEnd = {
      state,
      exitCode: result.exit_code,
      signal: result.signal,
      durationMs: result.duration_ms,
      // Every kept line, not the result's tail: a status read cuts to the lines it asks for.
      output: running.output(ALL_LINES),
      ...(result.limit_exceeded === undefined ? {} : { limitExceeded: result.limit_exceeded }),
    };
    await recordEnd(store, jobId, end, report);
    return end;
  } catch (error) {
    report(error);
    return undefined;
  } finally {
    clearInterval(timer);
    off();
  }
}
