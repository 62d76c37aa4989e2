import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { RunnerError } from './runnerError.js';
import type {
  JobRegistry,
  JobRegistryOptions,
  JobState,
  JobStatus,
  RunningScript,
  RunRequest,
  RunResult,
  ScriptOutput,
  ScriptRunner,
} from './types.js';

interface Job {
  readonly id: string;
  readonly skill: string;
  readonly script: string;
  readonly abort: AbortController;
  running?: RunningScript;
  result?: RunResult;
  error?: string;
  /** Epoch milliseconds the job ended; unset while it starts or runs. */
  endedAt?: number;
}

const NO_OUTPUT: ScriptOutput = {
  stdout: '',
  stderr: '',
  stdout_truncated: false,
  stderr_truncated: false,
  stdout_bytes: 0,
  stderr_bytes: 0,
};

// Finished jobs an owner may keep, per allowed running job, so a busy owner cannot grow memory without bound.
const RETAINED_PER_RUNNING = 4;

/** Creates the async job registry on top of a runner; finished jobs expire `ttlSeconds` after they end. */
export function createJobRegistry(runner: ScriptRunner, options: JobRegistryOptions): JobRegistry {
  const ttlMs = options.ttlSeconds * 1000;
  const owners = new Map<string, Map<string, Job>>();
  let closed = false;
  const sweepTimer = setInterval(sweep, Math.min(Math.max(ttlMs, 100), 60_000));
  sweepTimer.unref();

  function sweep(): void {
    const now = Date.now();
    for (const [owner, jobs] of owners) {
      for (const [id, job] of jobs) {
        if (job.endedAt !== undefined && now - job.endedAt >= ttlMs) jobs.delete(id);
      }
      if (jobs.size === 0) owners.delete(owner);
    }
  }

  function find(owner: string, jobId: string): Job {
    sweep();
    const job = owners.get(owner)?.get(jobId);
    // Unknown and foreign jobs get the same answer, so an id never reveals that a job exists.
    if (job === undefined) throw new RunnerError('JOB_NOT_FOUND', 'no such job');
    return job;
  }

  function finish(owner: string, job: Job, fields: { result?: RunResult; error?: string }): void {
    Object.assign(job, fields, { endedAt: Date.now() });
    const jobs = owners.get(owner);
    if (jobs === undefined) return;
    const finished = [...jobs.values()].filter((j) => j.endedAt !== undefined);
    finished.sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
    const excess = finished.length - RETAINED_PER_RUNNING * options.maxPerOwner;
    for (const old of finished.slice(0, Math.max(0, excess))) jobs.delete(old.id);
  }

  function state(job: Job): JobState {
    if (job.error !== undefined) return 'failed';
    if (job.result?.timed_out) return 'timed_out';
    if (job.running?.cancelled) return 'cancelled';
    return job.result === undefined ? 'running' : 'exited';
  }

  function status(job: Job, tailLines?: number): JobStatus {
    const output = job.running?.output(tailLines) ?? NO_OUTPUT;
    const duration = job.running === undefined ? 0 : Date.now() - job.running.startedAt;
    return {
      job_id: job.id,
      state: state(job),
      skill: job.skill,
      script: job.script,
      exit_code: job.result?.exit_code ?? null,
      signal: job.result?.signal ?? null,
      duration_ms: job.result?.duration_ms ?? duration,
      ...output,
      ...(job.error === undefined ? {} : { error: job.error }),
      ...(job.result?.limit_exceeded === undefined ? {} : { limit_exceeded: job.result.limit_exceeded }),
    };
  }

  return {
    async start(owner, req: RunRequest) {
      if (closed) throw new RunnerError('RUNNER_CLOSED', 'the job registry is shutting down');
      sweep();
      const jobs = owners.get(owner) ?? new Map<string, Job>();
      const live = [...jobs.values()].filter((j) => j.endedAt === undefined).length;
      if (live >= options.maxPerOwner) {
        throw new RunnerError('JOB_LIMIT', `${live} jobs are already running (jobs.max_per_session)`);
      }
      const abort = new AbortController();
      const job: Job = {
        id: randomBytes(16).toString('base64url'),
        skill: req.skillName,
        script: relative(req.skillDir, req.scriptPath),
        abort,
      };
      // Registered before the start resolves, so concurrent starts count against the limit.
      jobs.set(job.id, job);
      owners.set(owner, jobs);
      const signal = req.signal === undefined ? abort.signal : AbortSignal.any([abort.signal, req.signal]);
      try {
        job.running = await runner.start({ ...req, signal });
      } catch (error) {
        if (error instanceof RunnerError && error.code === 'RUNNER_SPAWN_FAILED') {
          finish(owner, job, { error: error.message });
          return { job_id: job.id };
        }
        jobs.delete(job.id);
        if (jobs.size === 0 && owners.get(owner) === jobs) owners.delete(owner);
        throw error;
      }
      void job.running.done.then((result) => finish(owner, job, { result }));
      return { job_id: job.id };
    },
    status(owner, jobId, tailLines) {
      return status(find(owner, jobId), tailLines);
    },
    cancel(owner, jobId) {
      const job = find(owner, jobId);
      job.abort.abort();
      return status(job);
    },
    dropOwner(owner) {
      for (const job of owners.get(owner)?.values() ?? []) job.abort.abort();
      owners.delete(owner);
    },
    get size() {
      sweep();
      let size = 0;
      for (const jobs of owners.values()) size += jobs.size;
      return size;
    },
    async close() {
      closed = true;
      clearInterval(sweepTimer);
      const pending: Promise<unknown>[] = [];
      for (const jobs of owners.values()) {
        for (const job of jobs.values()) {
          job.abort.abort();
          if (job.running !== undefined) pending.push(job.running.done);
        }
      }
      owners.clear();
      await Promise.allSettled(pending);
    },
  };
}
