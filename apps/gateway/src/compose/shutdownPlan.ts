import type { FastifyBaseLogger } from 'fastify';

/** One named step of a shutdown. */
export interface ShutdownStep {
  readonly name: string;
  /**
   * How long the step may take before `onDeadline` (when given) runs; the step is still awaited after it. Its
   * end time (epoch ms; Infinity without one) is passed to `run`, for steps that wait until then themselves.
   */
  readonly deadlineMs?: number;
  run(deadline: number): Promise<unknown>;
  /** What cuts the step short once its deadline passed (open connections closed, say). */
  readonly onDeadline?: () => void;
}

/**
 * Runs a shutdown's steps in their order, each awaited before the next, and logs each (debug) with its
 * duration. A step that throws ends the shutdown with its error, as an await in a hand-written list would.
 */
export async function runShutdown(steps: readonly ShutdownStep[], log: FastifyBaseLogger): Promise<void> {
  for (const step of steps) {
    const started = Date.now();
    const deadline = started + (step.deadlineMs ?? Number.POSITIVE_INFINITY);
    const cut =
      step.onDeadline === undefined || step.deadlineMs === undefined
        ? undefined
        : setTimeout(step.onDeadline, step.deadlineMs);
    try {
      await step.run(deadline);
    } finally {
      if (cut !== undefined) clearTimeout(cut);
    }
    log.debug({ step: step.name, duration_ms: Date.now() - started }, 'shutdown step done');
  }
}
