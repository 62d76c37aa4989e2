/**
 * A job's output as the store keeps it: each stream's tail, its truncation flag and its byte count (the
 * runner's ScriptOutput, which the job registry writes here).
 */
export interface JobOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly stdout_truncated: boolean;
  readonly stderr_truncated: boolean;
  readonly stdout_bytes: number;
  readonly stderr_bytes: number;
}

/** Which of `scripts.limits` a run hit, as the runner names it. */
export type JobLimit = 'memory' | 'processes' | 'file_bytes' | 'cpu_seconds';

/** State of an async job; `lost` means the replica running it stopped answering. */
export type JobRecordState = 'running' | 'exited' | 'timed_out' | 'cancelled' | 'failed' | 'lost';

/** A job as registered when it starts. */
export interface NewJob {
  readonly id: string;
  /** Session id or principal scope key the job belongs to. */
  readonly owner: string;
  readonly skill: string;
  readonly script: string;
  readonly startedAt: number;
}

/** How a job ended. */
export interface JobEnd {
  readonly state: Exclude<JobRecordState, 'running' | 'lost'>;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly durationMs: number;
  readonly output: JobOutput;
  /** Why a `failed` job failed. */
  readonly error?: string;
  /** Set when the run hit one of `scripts.limits` and the runner can tell which. */
  readonly limitExceeded?: JobLimit;
}

/** An async job as every replica sees it. */
export interface JobRecord extends NewJob {
  readonly state: JobRecordState;
  /** Replica that runs (or ran) the job. */
  readonly replica: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** Run time so far, or in all once ended. */
  readonly durationMs: number;
  /** Output so far (each stream's tail, bounded by the store), flags and byte counts. */
  readonly output: JobOutput;
  /** Last time the running replica reported on the job. */
  readonly updatedAt: number;
  readonly endedAt?: number;
  /** Why the job failed or was lost. */
  readonly error?: string;
  /** Set when the run hit one of `scripts.limits` and the runner can tell which. */
  readonly limitExceeded?: JobLimit;
  /** A cancel was asked for (from any replica). */
  readonly cancelRequested: boolean;
}

/** Async job records shared by replicas: the replica that runs a job writes it; any replica reads it. */
export interface JobStore {
  /** This replica's id, written into the records of the jobs it runs. */
  readonly replica: string;
  /** Registers a job running on this replica; rejects JOB_LIMIT when its owner already runs the most it may. */
  start(job: NewJob): Promise<void>;
  /** Records output so far (none: unchanged); says whether a cancel was requested meanwhile. */
  progress(id: string, output?: JobOutput): Promise<{ readonly cancelRequested: boolean }>;
  /** Records how the job ended; it is kept for the jobs TTL from now. */
  finish(id: string, end: JobEnd): Promise<void>;
  /** The job if it exists and belongs to owner, with its output as kept (cut by lines by the reader). */
  get(owner: string, id: string): Promise<JobRecord | undefined>;
  /** Asks the replica running the job to stop it; the record as it is now, undefined when unknown or foreign. */
  cancel(owner: string, id: string): Promise<JobRecord | undefined>;
  /** Called on this replica when a cancel reaches one of its jobs (asked here or on another replica). */
  onCancel(listener: (jobId: string) => void): () => void;
  /** Forgets every job of owner, asking running ones to stop (a session-scoped owner ended). */
  dropOwner(owner: string): Promise<void>;
  /** Jobs running now on every replica sharing the store (jobs of dead replicas are marked lost first). */
  countRunning(): Promise<number>;
  /** The `limit` most recently started running jobs of every replica, newest first, without their output. */
  newestRunning(limit: number): Promise<readonly JobRecord[]>;
  close(): Promise<void>;
}

/** Options shared by the job stores, from the `jobs` config section. */
export interface JobStoreOptions {
  /** How long a finished (or lost) job is kept. */
  readonly ttlMs: number;
  /** Running jobs per owner. */
  readonly maxRunningPerOwner: number;
  /** Bytes kept of each output stream's tail in the record. */
  readonly maxOutputBytes: number;
  /** This replica's id (default: a random one per process, so a restarted replica never revives old jobs). */
  readonly replica?: string;
}
