import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { RunnerError, type RunningScript, type ScriptRunner } from '@skillgate/runner';
import { type JobEnd, type JobRecord, type JobStore, NO_OUTPUT, StateError } from '@skillgate/state';
import type { JobRegistry, JobStatus } from './jobTypes.js';
import { lastLinesOf } from './lastLinesOf.js';
import { mirrorJob } from './mirrorJob.js';

/** Options of createJobRegistry. */
export interface JobRegistryOptions {
  readonly runner: ScriptRunner;
  /** Where job records live: this process's memory, or Redis shared by replicas. */
  readonly store: JobStore;
  /** Lines of each stream a status read returns when the caller gives no tail (scripts.default_tail). */
  readonly defaultTailLines: number;
  /** How often a running job's output is written to the store (default 500 ms). */
  readonly mirrorIntervalMs?: number;
  /** How long close() waits for the ends of stopped jobs to be recorded (default 3000 ms). */
  readonly closeGraceMs?: number;
  /** Receives store failures of running jobs (the scripts keep running). */
  readonly onError?: (error: unknown) => void;
  /** Called on this replica once the end of a job that ran here is recorded (for metrics). */
  readonly onEnd?: (end: JobEnd) => void;
}

/** A job started on this replica. */
interface LocalJob {
  readonly abort: AbortController;
  running?: RunningScript;
  /** Settles once the job's end is recorded in the store. */
  mirrored?: Promise<void>;
}

function toStatus(record: JobRecord): JobStatus {
  return {
    job_id: record.id,
    state: record.state,
    skill: record.skill,
    script: record.script,
    exit_code: record.exitCode,
    signal: record.signal,
    duration_ms: record.durationMs,
    ...record.output,
    ...(record.error === undefined ? {} : { error: record.error }),
    ...(record.limitExceeded === undefined ? {} : { limit_exceeded: record.limitExceeded }),
    ...(record.cancelRequested && record.state === 'running' ? { cancel_requested: true } : {}),
  };
}

/**
 * Async jobs on top of a JobStore, the same code for both backends: a job's record is written when it
 * starts (the store holds the running cap of its owner), mirrorJob keeps it current while the script runs
 * here, and status and cancel go through the store, so any replica sharing it answers for any job.
 */
export function createJobRegistry(options: JobRegistryOptions): JobRegistry {
  const { runner, store } = options;
  const report = options.onError ?? (() => {});
  const local = new Map<string, LocalJob>();
  let closed = false;
  // A cancel that reaches this replica while the job still waits for a runner slot aborts the wait.
  const offCancel = store.onCancel((id) => local.get(id)?.abort.abort());

  const read = async (owner: string, jobId: string, tailLines: number | undefined): Promise<JobRecord> => {
    const record = await store.get(owner, jobId);
    // Unknown and foreign jobs get the same answer, so an id never reveals that a job exists.
    if (record === undefined) throw new StateError('JOB_NOT_FOUND', 'no such job');
    return { ...record, output: lastLinesOf(record.output, tailLines) };
  };

  return {
    async start(owner, req) {
      if (closed) throw new StateError('STATE_CLOSED', 'the job registry is shutting down');
      const id = randomBytes(16).toString('base64url');
      const job: LocalJob = { abort: new AbortController() };
      const failed = (error: unknown) => ({
        state: 'failed' as const,
        exitCode: null,
        signal: null,
        durationMs: 0,
        output: NO_OUTPUT,
        error: error instanceof Error ? error.message : String(error),
      });
      try {
        await store.start({
          id,
          owner,
          skill: req.skillName,
          script: relative(req.skillDir, req.scriptPath),
          startedAt: Date.now(),
        });
      } catch (error) {
        // A start that timed out may still have been written: end it, so it cannot hold a running slot.
        if (error instanceof StateError && error.code === 'STATE_UNAVAILABLE') {
          store.finish(id, failed(error)).catch(() => {});
        }
        throw error;
      }
      local.set(id, job);
      const signal =
        req.signal === undefined ? job.abort.signal : AbortSignal.any([job.abort.signal, req.signal]);
      try {
        job.running = await runner.start({ ...req, signal });
      } catch (error) {
        local.delete(id);
        const spawnFailed = error instanceof RunnerError && error.code === 'RUNNER_SPAWN_FAILED';
        // The record must not stay `running`: a job that never ran ended as failed.
        await store.finish(id, failed(error)).catch(report);
        if (spawnFailed) return { job_id: id };
        throw error;
      }
      job.mirrored = mirrorJob(store, id, job.running, {
        intervalMs: options.mirrorIntervalMs,
        onError: report,
      })
        .then((end) => {
          if (end !== undefined) options.onEnd?.(end);
        })
        .catch(report)
        .finally(() => local.delete(id));
      return { job_id: id };
    },
    async status(owner, jobId, tailLines) {
      return toStatus(await read(owner, jobId, tailLines ?? options.defaultTailLines));
    },
    async cancel(owner, jobId) {
      const record = await store.cancel(owner, jobId);
      if (record === undefined) throw new StateError('JOB_NOT_FOUND', 'no such job');
      // The record as it is now: the stop is asked for, not awaited (the job may run on another replica).
      return toStatus({
        ...record,
        output: lastLinesOf(record.output, options.defaultTailLines),
      });
    },
    dropOwner(owner) {
      // Called as a session ends, with nobody to answer: a store that is away is reported, not thrown.
      store.dropOwner(owner).catch(report);
    },
    get localRunning() {
      return local.size;
    },
    countRunning: () => store.countRunning(),
    newestRunning: (limit) => store.newestRunning(limit),
    async close() {
      closed = true;
      offCancel();
      const jobs = [...local.values()];
      for (const job of jobs) job.abort.abort();
      await Promise.allSettled(jobs.flatMap((job) => job.running?.done ?? []));
      // The ends are recorded while the store is still open; a store that is down gets a bounded wait.
      const grace = new Promise<void>((resolve) => setTimeout(resolve, options.closeGraceMs ?? 3000).unref());
      await Promise.race([Promise.allSettled(jobs.flatMap((job) => job.mirrored ?? [])), grace]);
    },
  };
}
