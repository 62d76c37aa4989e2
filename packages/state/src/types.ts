import type { LimitName, RunRequest, ScriptOutput } from '@skillgate/runner';

/** Stable codes of state failures. */
export type StateErrorCode =
  | 'STATE_UNAVAILABLE' // the shared store (Redis) is unreachable, or did not answer in time
  | 'STATE_FULL' // Redis refused a write: it reached its maxmemory (OOM)
  | 'STATE_INVALID' // a stored value failed validation (written by another version, or damaged)
  | 'STATE_CLOSED' // the store was closed
  | 'STATE_MISCONFIGURED' // state.backend is redis but its URL is missing or not a Redis URL
  | 'JOB_LIMIT' // the owner already runs the most jobs it may
  | 'JOB_NOT_FOUND'; // unknown or expired job id, or a job of another owner (the same answer, on purpose)

/** Change events for the SDK's `subscriptions/listen` streams (the shape of its ServerEvent). */
export type ListChangedEvent =
  | {
      readonly kind: 'tools_list_changed' | 'prompts_list_changed' | 'resources_list_changed';
      readonly params?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly kind: 'resource_updated';
      readonly uri: string;
      readonly params?: Readonly<Record<string, unknown>>;
    };

/** A JSON-RPC notification to deliver on the stream of one 2025-era session, wherever it is held. */
export interface SessionNotifyEvent {
  readonly kind: 'session_notify';
  readonly sessionId: string;
  readonly message: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> };
}

/**
 * A JSON-RPC notification for the GET streams of every 2025-era session sharing an unlock scope (a
 * principal-scoped unlock changes the lists of that principal's other sessions, wherever they are held).
 */
export interface ScopeNotifyEvent {
  readonly kind: 'scope_notify';
  readonly scopeKey: string;
  /** The session that caused it (it hears of it on its own response stream). */
  readonly exceptSessionId?: string;
  readonly message: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> };
}

/** Everything that crosses replicas on the notification bus. */
export type StateEvent = ListChangedEvent | SessionNotifyEvent | ScopeNotifyEvent;

/**
 * Publish/subscribe between replicas. Structurally a `ServerEventBus` of the MCP SDK (v2): publish never
 * throws or waits (delivery failures go to the bus's onError), and a publisher's own listeners get the event
 * synchronously, exactly once.
 */
export interface EventBus<E = StateEvent> {
  /** Delivers to this replica's listeners now and to every other replica's listeners soon. */
  publish(event: E): void;
  /** Registers a listener; returns an idempotent unsubscribe. */
  subscribe(listener: (event: E) => void): () => void;
}

/**
 * Values replicas agree on once (the first to claim a key sets it for all): how replicas without a lock file
 * serve the same commit of a skill source.
 */
export interface PinStore {
  /** The value held for `key`, or `value` after storing it when none was. */
  claim(key: string, value: string): Promise<string>;
  /** The value held for `key`, if any. */
  get(key: string): Promise<string | undefined>;
}

/** Per-principal request budget shared by every replica. */
export interface RateLimiter {
  /**
   * Takes one request (or `cost` requests' worth, at most a full bucket) from key's budget: 0 when allowed,
   * else seconds to wait before retrying (≥ 1).
   */
  take(key: string, cost?: number): Promise<number>;
}

/** Limits of a rate limiter, from the `rate_limit` config section. */
export interface RateLimitOptions {
  /** Sustained rate; 0 turns limiting off. */
  readonly requestsPerSecond: number;
  /** Requests that may arrive at once. */
  readonly burst: number;
}

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
  readonly output: ScriptOutput;
  /** Why a `failed` job failed. */
  readonly error?: string;
  /** Set when the run hit one of `scripts.limits` and the runner can tell which. */
  readonly limitExceeded?: LimitName;
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
  readonly output: ScriptOutput;
  /** Last time the running replica reported on the job. */
  readonly updatedAt: number;
  readonly endedAt?: number;
  /** Why the job failed or was lost. */
  readonly error?: string;
  /** Set when the run hit one of `scripts.limits` and the runner can tell which. */
  readonly limitExceeded?: LimitName;
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
  progress(id: string, output?: ScriptOutput): Promise<{ readonly cancelRequested: boolean }>;
  /** Records how the job ended; it is kept for the jobs TTL from now. */
  finish(id: string, end: JobEnd): Promise<void>;
  /** The job if it exists and belongs to owner; output cut to the last tailLines lines of each stream. */
  get(owner: string, id: string, tailLines?: number): Promise<JobRecord | undefined>;
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

/** What skill usage counts (docs/observability.md, "Skill usage"). */
export type UsageEvent = 'info' | 'run_ok' | 'run_error' | 'run_limit' | 'read' | 'upstream';

/** n events of one kind for one skill and principal. */
export interface UsageCount {
  readonly skill: string;
  readonly principal: string;
  readonly event: UsageEvent;
  readonly n: number;
}

/** A query text and how often it was searched with no result. */
export interface QueryCount {
  readonly text: string;
  readonly n: number;
}

/** Counts gathered in memory since the last flush, or totals read back. */
export interface UsageFigures {
  readonly counts: readonly UsageCount[];
  /** search_skills calls that returned nothing. */
  readonly emptySearches: number;
  /** The texts of those searches, only when observability.keep_queries is on; bounded by the store. */
  readonly queries: readonly QueryCount[];
}

/** Skill usage of every replica sharing the backend: increments in batches, totals over the kept window. */
export interface UsageStore {
  /** Adds a batch of counts (one round trip with Redis). */
  add(batch: UsageFigures): Promise<void>;
  /** Every count of the kept window (with Redis, the last days; in memory, since the start), queries most searched first. */
  totals(): Promise<UsageFigures>;
}
