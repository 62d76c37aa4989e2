import { randomBytes } from 'node:crypto';
import { StateError } from '../stateError.js';
import { cutOutput } from './cutOutput.js';
import { NO_OUTPUT } from './noOutput.js';
import type { JobRecord, JobStore, JobStoreOptions } from './types.js';

type MutableJob = { -readonly [K in keyof JobRecord]: JobRecord[K] };

// Finished jobs an owner may keep, per allowed running job, so a busy owner cannot grow memory without bound.
const RETAINED_PER_RUNNING = 4;

/** A JobStore in this process's memory (one replica: a job is never lost, only forgotten at exit). */
export function createMemoryJobStore(options: JobStoreOptions): JobStore {
  const replica = options.replica ?? randomBytes(6).toString('hex');
  const jobs = new Map<string, MutableJob>();
  const owners = new Map<string, Set<string>>();
  const listeners = new Set<(jobId: string) => void>();
  let closed = false;

  const ensureOpen = (): void => {
    if (closed) throw new StateError('STATE_CLOSED', 'the job store is closed');
  };

  const remove = (id: string): void => {
    const job = jobs.get(id);
    if (job === undefined) return;
    jobs.delete(id);
    const ids = owners.get(job.owner);
    ids?.delete(id);
    if (ids?.size === 0) owners.delete(job.owner);
  };

  const sweep = (): void => {
    const now = Date.now();
    for (const [id, job] of jobs) {
      if (job.endedAt !== undefined && now - job.endedAt >= options.ttlMs) remove(id);
    }
  };

  const requestCancel = (job: MutableJob): void => {
    if (job.state !== 'running') return;
    job.cancelRequested = true;
    for (const listener of [...listeners]) listener(job.id);
  };

  const find = (owner: string, id: string): MutableJob | undefined => {
    sweep();
    const job = jobs.get(id);
    return job?.owner === owner ? job : undefined;
  };

  return {
    replica,
    async start(job) {
      ensureOpen();
      sweep();
      const ids = owners.get(job.owner) ?? new Set<string>();
      const mine = [...ids].flatMap((id) => jobs.get(id) ?? []);
      if (mine.filter((j) => j.state === 'running').length >= options.maxRunningPerOwner) {
        throw new StateError(
          'JOB_LIMIT',
          `${options.maxRunningPerOwner} jobs are already running (jobs.max_per_session)`,
        );
      }
      const finished = mine
        .filter((j) => j.endedAt !== undefined)
        .sort((a, b) => (a.endedAt ?? 0) - (b.endedAt ?? 0));
      const excess = finished.length - RETAINED_PER_RUNNING * options.maxRunningPerOwner + 1;
      for (const old of finished.slice(0, Math.max(0, excess))) remove(old.id);
      jobs.set(job.id, {
        ...job,
        state: 'running',
        replica,
        exitCode: null,
        signal: null,
        durationMs: 0,
        output: NO_OUTPUT,
        updatedAt: Date.now(),
        cancelRequested: false,
      });
      ids.add(job.id);
      owners.set(job.owner, ids);
    },
    async progress(id, output) {
      ensureOpen();
      const job = jobs.get(id);
      if (job === undefined) return { cancelRequested: true };
      if (job.state === 'running') {
        if (output !== undefined) job.output = cutOutput(output, options.maxOutputBytes);
        job.updatedAt = Date.now();
        job.durationMs = job.updatedAt - job.startedAt;
      }
      return { cancelRequested: job.cancelRequested };
    },
    async finish(id, end) {
      ensureOpen();
      const job = jobs.get(id);
      if (job === undefined) return;
      const now = Date.now();
      Object.assign(job, {
        state: end.state,
        exitCode: end.exitCode,
        signal: end.signal,
        durationMs: end.durationMs,
        output: cutOutput(end.output, options.maxOutputBytes),
        updatedAt: now,
        endedAt: now,
        ...(end.error === undefined ? {} : { error: end.error }),
        ...(end.limitExceeded === undefined ? {} : { limitExceeded: end.limitExceeded }),
      });
    },
    async get(owner, id) {
      ensureOpen();
      const job = find(owner, id);
      if (job === undefined) return undefined;
      const durationMs = job.state === 'running' ? Date.now() - job.startedAt : job.durationMs;
      return { ...job, durationMs };
    },
    async cancel(owner, id) {
      ensureOpen();
      const job = find(owner, id);
      if (job === undefined) return undefined;
      requestCancel(job);
      return { ...job };
    },
    onCancel(listener) {
      const entry = (jobId: string): void => listener(jobId);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    async dropOwner(owner) {
      for (const id of owners.get(owner) ?? []) {
        const job = jobs.get(id);
        if (job !== undefined) requestCancel(job);
        remove(id);
      }
    },
    async countRunning() {
      ensureOpen();
      let running = 0;
      for (const job of jobs.values()) if (job.state === 'running') running++;
      return running;
    },
    async newestRunning(limit) {
      ensureOpen();
      // The map is in start order: keep a window of the last `limit` running ones.
      const last: JobRecord[] = [];
      if (limit <= 0) return last;
      const now = Date.now();
      for (const job of jobs.values()) {
        if (job.state !== 'running') continue;
        if (last.length === limit) last.shift();
        last.push({ ...job, durationMs: now - job.startedAt, output: NO_OUTPUT });
      }
      return last.reverse();
    },
    async close() {
      closed = true;
      jobs.clear();
      owners.clear();
      listeners.clear();
    },
  };
}
