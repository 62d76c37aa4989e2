/** Stable codes of runner failures (not script failures: a script that exits non-zero is a result). */
export type RunnerErrorCode =
  | 'RUNNER_BUSY' // concurrency cap reached and the queue is full (or the wait timed out)
  | 'RUNNER_NO_INTERPRETER' // no interpreter for the extension and the file is not an executable with a shebang
  | 'RUNNER_SPAWN_FAILED' // the interpreter could not be started
  | 'RUNNER_INPUT_TOO_LARGE' // stdin or args over their caps
  | 'RUNNER_CLOSED' // the runner is shutting down
  | 'JOB_NOT_FOUND' // unknown job id, or a job of another owner
  | 'JOB_LIMIT'; // the owner already has jobs.max_per_session live jobs

/** Limits and environment policy of a runner, taken from the `scripts` config section. */
export interface RunnerOptions {
  /** Interpreter argv prefix by file extension (with the dot), e.g. `{ '.py': ['python3'] }`. */
  readonly interpreters: Readonly<Record<string, readonly string[]>>;
  /** Names of gateway environment variables a script may see. */
  readonly envPassthrough: readonly string[];
  /** Names that must never reach a script even if listed in envPassthrough (auth token variables). */
  readonly envDeny?: readonly string[];
  /** Environment to copy passthrough values from; defaults to process.env. */
  readonly sourceEnv?: Readonly<Record<string, string | undefined>>;
  readonly defaultTimeoutSeconds: number;
  readonly maxTimeoutSeconds: number;
  /** Cap of each of stdout/stderr; the tail is kept. */
  readonly maxOutputBytes: number;
  readonly defaultTailLines: number;
  /** Scripts running at once across the gateway. */
  readonly maxConcurrent: number;
  /** Scripts running at once for one principal. */
  readonly maxConcurrentPerPrincipal: number;
  /** Runs allowed to wait for a slot; 0 = fail fast with RUNNER_BUSY. */
  readonly maxQueue: number;
  /** Longest wait for a slot before RUNNER_BUSY, in milliseconds. */
  readonly queueTimeoutMs: number;
  readonly maxStdinBytes: number;
  /** Time between SIGTERM and SIGKILL of the process group on timeout or cancel. */
  readonly killGraceMs: number;
}

/** One run of one script. */
export interface RunRequest {
  readonly skillName: string;
  /** Absolute skill directory: the cwd of the script and the value of SKILL_DIR. */
  readonly skillDir: string;
  /** Absolute path of the script file (already resolved by the catalog, never from the caller). */
  readonly scriptPath: string;
  /** Whether the script file is executable (a shebang script without a configured interpreter may run directly). */
  readonly executable: boolean;
  readonly args?: readonly string[];
  readonly stdin?: string;
  /** Seconds; clamped to maxTimeoutSeconds; defaults to defaultTimeoutSeconds. */
  readonly timeoutSeconds?: number;
  /** Lines of each stream kept in the result; defaults to defaultTailLines. */
  readonly tailLines?: number;
  /** Who runs it, for the per-principal concurrency cap. */
  readonly principal: string;
  /** Aborting kills the process group (client cancel, shutdown). */
  readonly signal?: AbortSignal;
}

/** The structured result of a finished run (DESIGN §5), also sent as structuredContent. */
export interface RunResult {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly timed_out: boolean;
  readonly duration_ms: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly stdout_truncated: boolean;
  readonly stderr_truncated: boolean;
  /** Total bytes the script wrote to each stream, before any cut. */
  readonly stdout_bytes: number;
  readonly stderr_bytes: number;
}

/** State of an async job. */
export type JobState = 'running' | 'exited' | 'timed_out' | 'cancelled' | 'failed';

/** What skill_get_async_status returns. */
export interface JobStatus {
  readonly job_id: string;
  readonly state: JobState;
  readonly skill: string;
  readonly script: string;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly duration_ms: number;
  /** Output so far (tail), with the same caps and flags as a RunResult. */
  readonly stdout: string;
  readonly stderr: string;
  readonly stdout_truncated: boolean;
  readonly stderr_truncated: boolean;
  /** Reason of a `failed` job (spawn failure). */
  readonly error?: string;
}

/** Options of the async job registry, from the `jobs` config section. */
export interface JobRegistryOptions {
  readonly ttlSeconds: number;
  readonly maxPerOwner: number;
}
