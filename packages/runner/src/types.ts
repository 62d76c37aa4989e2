/** Stable codes of runner failures (not script failures: a script that exits non-zero is a result). */
export type RunnerErrorCode =
  | 'RUNNER_BUSY' // concurrency cap reached and the queue is full (or the wait timed out)
  | 'RUNNER_NO_INTERPRETER' // no interpreter for the extension and the file is not an executable with a shebang
  | 'RUNNER_SPAWN_FAILED' // the interpreter could not be started
  | 'RUNNER_INPUT_TOO_LARGE' // stdin or args over their caps
  | 'RUNNER_CLOSED' // the runner is shutting down
  | 'RUNNER_ABORTED' // the request's signal aborted before the script was spawned (while queued)
  | 'SANDBOX_UNAVAILABLE'; // scripts.sandbox is bwrap and bubblewrap does not work on this host

/** `scripts.sandbox`: bubblewrap when it works (auto), always (bwrap, else refuse to start) or never (off). */
export type SandboxMode = 'auto' | 'bwrap' | 'off';

/** Per-run resource limits, from `scripts.limits`; 0 means no limit. */
export interface ScriptLimits {
  /** Memory of the whole run in MiB (a memory cgroup where available), and data segment of each process (RLIMIT_DATA). */
  readonly memoryMb: number;
  /** Processes and threads of one run (a cgroup pids limit where available; RLIMIT_NPROC inside the sandbox). */
  readonly processes: number;
  /** Largest file a script may write (RLIMIT_FSIZE), and the size of its private /tmp in the sandbox. */
  readonly fileBytes: number;
  /** CPU time of each process, in seconds (RLIMIT_CPU). */
  readonly cpuSeconds: number;
}

/** Which limit a run hit, when the runner can tell (see docs/sandbox.md). */
export type LimitName = 'memory' | 'processes' | 'file_bytes' | 'cpu_seconds';

/** What the start-up probe found: the sandbox scripts will run in, and why it is off when it is. */
export interface SandboxStatus {
  /** The configured mode. */
  readonly requested: SandboxMode;
  /** What scripts run in: bubblewrap, or nothing beyond the process guard. */
  readonly mode: 'bwrap' | 'off';
  /** Absolute path of the bwrap binary (when mode is bwrap). */
  readonly bwrapPath?: string;
  /** Why the sandbox is off although it was asked for (auto without a working bubblewrap). */
  readonly reason?: string;
}

/** How a runner isolates scripts, for start-up logs and readiness details. */
export interface IsolationReport {
  readonly sandbox: 'bwrap' | 'off';
  readonly requested: SandboxMode;
  /** Why the sandbox is off although it was asked for. */
  readonly reason?: string;
  /** Whether sandboxed scripts may use the network. */
  readonly network: boolean;
  /** Whether each run gets its own cgroup (pids limit, kill of every process it left). */
  readonly cgroup: boolean;
  /** Whether each run also gets a memory cgroup, so `memory_mb` bounds the whole run, not each process. */
  readonly memoryCgroup: boolean;
  /** Whether a watchdog kills the runs' processes if the gateway dies without closing the runner. */
  readonly watchdog: boolean;
  /** Script processes of earlier, dead gateways killed at start-up. */
  readonly sweptProcesses: number;
}

/** A running script's progress, reported about once a second. */
export interface RunProgress {
  readonly elapsedMs: number;
  /** The last non-empty line the script wrote (stdout or stderr, whichever wrote last), cut to 200 characters. */
  readonly lastLine: string;
}

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
  /** The sandbox found by probeSandbox; without it scripts run unsandboxed (still under the process guard). */
  readonly sandbox?: SandboxStatus;
  /** Whether sandboxed scripts may use the network (the host's; default false). */
  readonly network?: boolean;
  /** Per-run resource limits; default none. */
  readonly limits?: ScriptLimits;
  /**
   * Warm spares (docs/sandbox.md, "Cost"): at most `max` (default 8, never over maxConcurrent), each ended after
   * `idleMs` unused (default 60 s), and given way to another skill's after `evictAfterMs` unused (default 1 s).
   */
  readonly spares?: { readonly max: number; readonly idleMs: number; readonly evictAfterMs?: number };
}

/** One run of one script. */
export interface RunRequest {
  readonly skillName: string;
  /**
   * Real path of the skill directory (symlinks resolved, as the catalog recorded it): the cwd of the script,
   * the value of SKILL_DIR, and what the sandbox binds, so a path that leads elsewhere later binds nothing.
   */
  readonly skillDir: string;
  /** Real path of the script file (resolved by the catalog and confirmed by the caller, never from the client). */
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
  /**
   * The caller's own credentials as environment variables (`scripts.credentials`, docs/credentials.md): set in
   * the run's environment over the shared one, never in an argv (such a run never takes a warm spare).
   */
  readonly credentials?: Readonly<Record<string, string>>;
  /** Aborting kills the process group (client cancel, shutdown). */
  readonly signal?: AbortSignal;
  /** Called about once a second while the script runs (never after it ended); must not throw. */
  readonly onProgress?: (progress: RunProgress) => void;
}

/** The structured result of a finished run (docs/skills.md), also sent as structuredContent. */
export interface RunResult extends ScriptOutput {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly timed_out: boolean;
  readonly duration_ms: number;
  /** Set when the run hit one of `scripts.limits` and the runner can tell which. */
  readonly limit_exceeded?: LimitName;
}

/** Output of a script so far: the kept tail of each stream, its flags and total byte counts. */
export interface ScriptOutput {
  readonly stdout: string;
  readonly stderr: string;
  /** True when anything the script wrote to the stream is missing from the text. */
  readonly stdout_truncated: boolean;
  readonly stderr_truncated: boolean;
  /** Total bytes the script wrote to each stream, before any cut. */
  readonly stdout_bytes: number;
  readonly stderr_bytes: number;
}

/** A spawned script that holds a runner slot until it is gone. */
export interface RunningScript {
  /** Settles once the process and every member of its group are gone; never rejects. */
  readonly done: Promise<RunResult>;
  /** Live output so far, cut to the last `tailLines` lines of each stream. */
  output(tailLines?: number): ScriptOutput;
  /** Kills the process group (SIGTERM, then SIGKILL after the grace period); a no-op once it exited or timed out. */
  cancel(): void;
  /** Epoch milliseconds of the spawn. */
  readonly startedAt: number;
  readonly cancelled: boolean;
}

/** Runs skill scripts under the concurrency, time, output and environment limits of RunnerOptions. */
export interface ScriptRunner {
  /** Starts the script and waits for its result. */
  run(req: RunRequest): Promise<RunResult>;
  /** Resolves once the script holds a slot and has been spawned. */
  start(req: RunRequest): Promise<RunningScript>;
  /** Scripts running now. */
  readonly active: number;
  /** Runs waiting for a slot. */
  readonly queued: number;
  /** Resolves once the process guard is set up (stale runs swept), with how scripts are isolated. */
  ready(): Promise<IsolationReport>;
  /** How scripts are isolated; undefined until ready() resolved. */
  readonly isolation: IsolationReport | undefined;
  /** Rejects queued runs with RUNNER_CLOSED and kills every running script, resolving when they are gone. */
  close(): Promise<void>;
}
