import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../redis/createRedisConnection.js';
import { StateError } from '../stateError.js';
import { cutOutput } from './cutOutput.js';
import { parseJobRecord } from './jobRecordSchema.js';
import { NO_OUTPUT } from './noOutput.js';
import { REDIS_JOB_SCRIPTS, RUNNING_INDEX } from './redisJobScripts.js';
import type { JobRecord, JobStore, JobStoreOptions } from './types.js';

/** Options of createRedisJobStore. */
export interface RedisJobStoreOptions extends JobStoreOptions {
  readonly connection: RedisConnection;
  /** How often this replica says it is alive (default 2000 ms). */
  readonly heartbeatMs?: number;
  /** A replica silent this long is taken for dead and its running jobs are reported lost (default 3 beats). */
  readonly heartbeatTtlMs?: number;
}

const CANCEL_CHANNEL = 'jobs:cancel';

/**
 * JobStore in Redis: one hash per job, an index per owner, and a heartbeat key per replica. A running job
 * whose replica's heartbeat expired is reported `lost` by whichever replica reads it. A cancel is flagged on
 * the job and published to the replica that runs it; that replica also sees the flag on its next progress
 * write, so a cancel published while it was reconnecting is not lost. See docs/scale-out.md.
 */
export function createRedisJobStore(options: RedisJobStoreOptions): JobStore {
  const { connection } = options;
  const replica = options.replica ?? randomBytes(6).toString('hex');
  const prefix = connection.key('');
  const heartbeatMs = options.heartbeatMs ?? 2000;
  const heartbeatTtl = String(options.heartbeatTtlMs ?? heartbeatMs * 3);
  const ttl = String(options.ttlMs);
  // jobs.ttl_seconds is how long a finished job is kept; a running one lives between two reports of its
  // replica at least as long as that replica's heartbeat (a short ttl, or reports held up by a busy event
  // loop, used to drop a running job's record: JOB_NOT_FOUND for a job still running).
  const runningTtl = String(Math.max(options.ttlMs, Number(heartbeatTtl)));
  const jobKey = (id: string): string => connection.key('job', id);
  const ownerKey = (owner: string): string => connection.key('jobs', owner);
  const replicaKey = connection.key('replica', replica);
  const listeners = new Set<(jobId: string) => void>();
  let closed = false;

  const beat = (): void => {
    if (closed || !connection.isHealthy()) return;
    connection
      .run((c) => c.set(replicaKey, '1', 'PX', heartbeatTtl))
      .catch(() => {
        // Missed beats are what make other replicas report this one's jobs lost; nothing else to do here.
      });
  };
  beat();
  const timer = setInterval(beat, heartbeatMs);
  timer.unref();

  const notify = (jobId: string): void => {
    for (const listener of [...listeners]) listener(jobId);
  };
  const unsubscribe = connection.subscribe(CANCEL_CHANNEL, (message) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(message);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || !('id' in parsed) || !('replica' in parsed)) return;
    if (parsed.replica === replica && typeof parsed.id === 'string') notify(parsed.id);
  });

  const askCancel = async (id: string, runningOn: string): Promise<void> => {
    if (runningOn === replica) notify(id);
    else await connection.publish(CANCEL_CHANNEL, JSON.stringify({ id, replica: runningOn }));
  };

  const ensureOpen = (): void => {
    if (closed) throw new StateError('STATE_CLOSED', 'the job store is closed');
  };

  const read = async (owner: string, id: string, cancel: boolean): Promise<JobRecord | undefined> => {
    ensureOpen();
    const flat = await connection.script(
      REDIS_JOB_SCRIPTS.read,
      [jobKey(id)],
      [prefix, owner, ttl, cancel ? '1' : '0', id],
    );
    if (flat === null) return undefined;
    const record = parseJobRecord(id, flat);
    if (record === undefined) throw new StateError('STATE_INVALID', `job ${id} is not a valid record`);
    return record;
  };

  const retained = 4 * options.maxRunningPerOwner;

  return {
    replica,
    async start(job) {
      ensureOpen();
      const outcome = await connection.script(
        REDIS_JOB_SCRIPTS.start,
        [ownerKey(job.owner), jobKey(job.id)],
        [
          prefix,
          job.id,
          job.owner,
          job.skill,
          job.script,
          job.startedAt,
          replica,
          ttl,
          options.maxRunningPerOwner,
          retained,
          heartbeatTtl,
          runningTtl,
        ],
      );
      if (outcome === 1) {
        throw new StateError(
          'JOB_LIMIT',
          `${options.maxRunningPerOwner} jobs are already running (jobs.max_per_session)`,
        );
      }
    },
    async progress(id, output) {
      ensureOpen();
      const json = output === undefined ? '' : JSON.stringify(cutOutput(output, options.maxOutputBytes));
      const cancel = await connection.script(
        REDIS_JOB_SCRIPTS.progress,
        [jobKey(id)],
        [prefix, replica, json, runningTtl, id],
      );
      return { cancelRequested: cancel === 1 };
    },
    async finish(id, end) {
      ensureOpen();
      await connection.script(
        REDIS_JOB_SCRIPTS.finish,
        [jobKey(id)],
        [
          prefix,
          replica,
          end.state,
          end.exitCode === null ? '' : end.exitCode,
          end.signal ?? '',
          end.durationMs,
          JSON.stringify(cutOutput(end.output, options.maxOutputBytes)),
          end.error ?? '',
          ttl,
          id,
          end.limitExceeded ?? '',
        ],
      );
    },
    async get(owner, id) {
      const record = await read(owner, id, false);
      if (record === undefined) return undefined;
      const durationMs =
        record.state === 'running'
          ? Math.max(record.durationMs, Date.now() - record.startedAt)
          : record.durationMs;
      return { ...record, durationMs };
    },
    async cancel(owner, id) {
      const record = await read(owner, id, true);
      if (record?.state === 'running') await askCancel(id, record.replica);
      return record;
    },
    onCancel(listener) {
      const entry = (jobId: string): void => listener(jobId);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
    async dropOwner(owner) {
      ensureOpen();
      const running = await connection.script(REDIS_JOB_SCRIPTS.drop, [ownerKey(owner)], [prefix]);
      if (!Array.isArray(running)) return;
      for (let i = 0; i + 1 < running.length; i += 2) {
        await askCancel(String(running[i]), String(running[i + 1]));
      }
    },
    async countRunning() {
      ensureOpen();
      return Number(
        await connection.script(REDIS_JOB_SCRIPTS.count, [connection.key(RUNNING_INDEX)], [prefix, ttl]),
      );
    },
    async newestRunning(limit) {
      ensureOpen();
      if (limit <= 0) return [];
      const flat = await connection.script(
        REDIS_JOB_SCRIPTS.newestRunning,
        [connection.key(RUNNING_INDEX)],
        [prefix, ttl, limit],
      );
      const records: JobRecord[] = [];
      for (let i = 0; Array.isArray(flat) && i + 1 < flat.length; i += 2) {
        const record = parseJobRecord(String(flat[i]), flat[i + 1]);
        // Listed without output: the page shows what runs, not what it printed.
        if (record !== undefined) records.push({ ...record, output: NO_OUTPUT });
      }
      return records;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      unsubscribe();
      listeners.clear();
      // Jobs still marked running here are reported lost at once instead of after the heartbeat TTL.
      await connection.run((c) => c.del(replicaKey)).catch(() => undefined);
    },
  };
}
