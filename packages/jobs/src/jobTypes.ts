import type { LimitName, RunRequest, ScriptOutput } from '@skillgate/runner';
import type { JobRecord, JobRecordState } from '@skillgate/state';

/** What skill_get_async_status returns: the job's state and its output so far, with the run result's flags. */
export interface JobStatus extends ScriptOutput {
  readonly job_id: string;
  readonly state: JobRecordState;
  readonly skill: string;
  readonly script: string;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly duration_ms: number;
  /** Why a `failed` job failed, or why a job is `lost`. */
  readonly error?: string;
  /** Set when the job hit one of `scripts.limits` and the runner can tell which. */
  readonly limit_exceeded?: LimitName;
  /** A cancel was asked for and the job has not stopped yet. */
  readonly cancel_requested?: true;
}

/**
 * Async jobs of many owners (sessions or principals), on top of a JobStore: a job runs on the replica that
 * started it, and any replica sharing the store reads or cancels it. An owner only ever sees its own jobs.
 */
export interface JobRegistry {
  /** Starts a job for owner; JOB_LIMIT past the running cap; a spawn failure still yields a `failed` job. */
  start(owner: string, req: RunRequest): Promise<{ readonly job_id: string }>;
  /** State and output so far (the last tailLines lines of each stream); JOB_NOT_FOUND for unknown or foreign. */
  status(owner: string, jobId: string, tailLines?: number): Promise<JobStatus>;
  /** Asks the replica running the job to stop it (a no-op once it ended); the status as it is now. */
  cancel(owner: string, jobId: string): Promise<JobStatus>;
  /** Stops the owner's running jobs, wherever they run, and forgets all of its jobs; never throws (onError). */
  dropOwner(owner: string): void;
  /** Jobs running on this replica. */
  readonly localRunning: number;
  /** Jobs running on every replica sharing the store. */
  countRunning(): Promise<number>;
  /** The `limit` most recently started running jobs of every replica, newest first, without their output. */
  newestRunning(limit: number): Promise<readonly JobRecord[]>;
  /** Refuses new jobs, stops this replica's running ones and resolves once their ends are recorded. */
  close(): Promise<void>;
}
