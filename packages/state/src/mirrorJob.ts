import type { RunningScript, ScriptOutput } from '@skillgate/runner';
import type { JobStore } from './types.js';

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

/**
 * Keeps a started job's record current while its script runs on this replica: writes new output every
 * interval, stops the script when a cancel arrives (published to this replica, or seen on the record), and
 * records how it ended. Resolves once the end is recorded (or could not be).
 */
export async function mirrorJob(
  store: JobStore,
  jobId: string,
  running: RunningScript,
  options: MirrorJobOptions = {},
): Promise<void> {
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
    await store.finish(jobId, {
      state,
      exitCode: result.exit_code,
      signal: result.signal,
      durationMs: result.duration_ms,
      output: result,
    });
  } catch (error) {
    report(error);
  } finally {
    clearInterval(timer);
    off();
  }
}
