import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../redis/createRedisConnection.js';
import { redisScript } from '../redis/redisScript.js';
import { StateError } from '../stateError.js';
import type { JobRecord, JobStore, JobStoreOptions } from '../types.js';
import { cutOutput } from './cutOutput.js';
import { parseJobRecord } from './jobRecordSchema.js';
import { NO_OUTPUT } from './noOutput.js';

/** Options of createRedisJobStore. */
export interface RedisJobStoreOptions extends JobStoreOptions {
  readonly connection: RedisConnection;
  /** How often this replica says it is alive (default 2000 ms). */
  readonly heartbeatMs?: number;
  /** A replica silent this long is taken for dead and its running jobs are reported lost (default 3 beats). */
  readonly heartbeatTtlMs?: number;
}

// Sorted set of the ids of running jobs (score: start time), for the running count across replicas.
const RUNNING_INDEX = 'running-jobs';

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// Marks a running job lost when its replica's heartbeat key is gone. Needs: jid (job id), prefix, ttl, now.
const LOST_CHECK = `
local function checkLost(jid, prefix, ttl, now)
  local jk = prefix .. 'job:' .. jid
  local f = redis.call('HMGET', jk, 'state', 'replica')
  if f[1] == 'running' and redis.call('EXISTS', prefix .. 'replica:' .. f[2]) == 0 then
    redis.call('HSET', jk, 'state', 'lost', 'endedAt', now,
      'error', 'the replica running the job (' .. f[2] .. ') stopped answering; its outcome is unknown')
    redis.call('PEXPIRE', jk, ttl)
    redis.call('ZREM', prefix .. '${RUNNING_INDEX}', jid)
    return 'lost'
  end
  return f[1]
end`;

// KEYS: owner index, job key; ARGV: prefix, id, owner, skill, script, startedAt, replica, ttl, max running,
// max retained, heartbeat ttl.
const START = redisScript(`${NOW}${LOST_CHECK}
redis.call('SET', ARGV[1] .. 'replica:' .. ARGV[7], '1', 'PX', ARGV[11])
local running = 0
local finished = {}
for _, jid in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local jk = ARGV[1] .. 'job:' .. jid
  local state = checkLost(jid, ARGV[1], ARGV[8], now)
  if not state then
    redis.call('ZREM', KEYS[1], jid)
  elseif state == 'running' then
    running = running + 1
  else
    table.insert(finished, { jid, tonumber(redis.call('HGET', jk, 'endedAt')) or 0 })
  end
end
if running >= tonumber(ARGV[9]) then return 1 end
local excess = #finished - tonumber(ARGV[10]) + 1
if excess > 0 then
  table.sort(finished, function(a, b) return a[2] < b[2] end)
  for i = 1, excess do
    redis.call('DEL', ARGV[1] .. 'job:' .. finished[i][1])
    redis.call('ZREM', KEYS[1], finished[i][1])
  end
end
redis.call('HSET', KEYS[2], 'owner', ARGV[3], 'skill', ARGV[4], 'script', ARGV[5], 'startedAt', ARGV[6],
  'state', 'running', 'replica', ARGV[7], 'exitCode', '', 'signal', '', 'durationMs', 0, 'output', '',
  'updatedAt', now, 'cancel', '0')
redis.call('PEXPIRE', KEYS[2], ARGV[8])
redis.call('ZADD', KEYS[1], ARGV[6], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
redis.call('ZADD', ARGV[1] .. '${RUNNING_INDEX}', ARGV[6], ARGV[2])
return 0`);

// KEYS: job key; ARGV: prefix, replica, output (or ''), ttl, id. Returns 1 when a cancel was asked (or the job
// is gone).
// A job reported lost while its replica was cut off from Redis comes back to life when that replica reports.
const PROGRESS = redisScript(`${NOW}
local f = redis.call('HMGET', KEYS[1], 'state', 'replica', 'owner', 'cancel', 'startedAt')
if not f[1] or f[2] ~= ARGV[2] then return 1 end
if f[1] == 'running' or f[1] == 'lost' then
  redis.call('HSET', KEYS[1], 'state', 'running', 'updatedAt', now, 'durationMs', now - tonumber(f[5]),
    'endedAt', '', 'error', '')
  if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'output', ARGV[3]) end
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  redis.call('PEXPIRE', ARGV[1] .. 'jobs:' .. f[3], ARGV[4])
  redis.call('ZADD', ARGV[1] .. '${RUNNING_INDEX}', f[5], ARGV[5])
end
if f[4] == '1' then return 1 end
return 0`);

// KEYS: job key; ARGV: prefix, replica, state, exit code, signal, duration, output, error, ttl, id, limit.
const FINISH = redisScript(`${NOW}
local f = redis.call('HMGET', KEYS[1], 'state', 'replica', 'owner')
if not f[1] or f[2] ~= ARGV[2] or (f[1] ~= 'running' and f[1] ~= 'lost') then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'exitCode', ARGV[4], 'signal', ARGV[5], 'durationMs', ARGV[6],
  'output', ARGV[7], 'error', ARGV[8], 'limit', ARGV[11], 'updatedAt', now, 'endedAt', now)
redis.call('PEXPIRE', KEYS[1], ARGV[9])
redis.call('PEXPIRE', ARGV[1] .. 'jobs:' .. f[3], ARGV[9])
redis.call('ZREM', ARGV[1] .. '${RUNNING_INDEX}', ARGV[10])
return 1`);

// KEYS: job key; ARGV: prefix, owner, ttl, cancel ('1' to ask for a cancel), id. Returns the hash, or false.
const READ = redisScript(`${NOW}${LOST_CHECK}
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[2] then return false end
local state = checkLost(ARGV[5], ARGV[1], ARGV[3], now)
if ARGV[4] == '1' and state == 'running' then redis.call('HSET', KEYS[1], 'cancel', '1') end
return redis.call('HGETALL', KEYS[1])`);

// KEYS: owner index; ARGV: prefix. Deletes the owner's jobs; returns { id, replica, ... } of running ones.
const DROP = redisScript(`
local out = {}
for _, jid in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local jk = ARGV[1] .. 'job:' .. jid
  local f = redis.call('HMGET', jk, 'state', 'replica')
  if f[1] == 'running' then
    table.insert(out, jid)
    table.insert(out, f[2])
  end
  redis.call('DEL', jk)
  redis.call('ZREM', ARGV[1] .. '${RUNNING_INDEX}', jid)
end
redis.call('DEL', KEYS[1])
return out`);

// ARGV: prefix, ttl. Counts running jobs, marking those of dead replicas lost and dropping ended or gone ones.
const COUNT = redisScript(`${NOW}${LOST_CHECK}
local index = ARGV[1] .. '${RUNNING_INDEX}'
local running = 0
for _, jid in ipairs(redis.call('ZRANGE', index, 0, -1)) do
  if checkLost(jid, ARGV[1], ARGV[2], now) == 'running' then
    running = running + 1
  else
    redis.call('ZREM', index, jid)
  end
end
return running`);

// ARGV: prefix, ttl, limit. The newest running jobs as { id, hash, id, hash, ... }, newest first; jobs of dead
// replicas are marked lost and left out, as COUNT does.
const NEWEST_RUNNING = redisScript(`${NOW}${LOST_CHECK}
local index = ARGV[1] .. '${RUNNING_INDEX}'
local out = {}
local found = 0
for _, jid in ipairs(redis.call('ZREVRANGE', index, 0, -1)) do
  if found >= tonumber(ARGV[3]) then break end
  if checkLost(jid, ARGV[1], ARGV[2], now) == 'running' then
    local jk = ARGV[1] .. 'job:' .. jid
    table.insert(out, jid)
    table.insert(out, redis.call('HGETALL', jk))
    found = found + 1
  else
    redis.call('ZREM', index, jid)
  end
end
return out`);

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
    const flat = await connection.script(READ, [jobKey(id)], [prefix, owner, ttl, cancel ? '1' : '0', id]);
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
        START,
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
      const json =
        output === undefined ? '' : JSON.stringify(cutOutput(output, { maxBytes: options.maxOutputBytes }));
      const cancel = await connection.script(PROGRESS, [jobKey(id)], [prefix, replica, json, ttl, id]);
      return { cancelRequested: cancel === 1 };
    },
    async finish(id, end) {
      ensureOpen();
      await connection.script(
        FINISH,
        [jobKey(id)],
        [
          prefix,
          replica,
          end.state,
          end.exitCode === null ? '' : end.exitCode,
          end.signal ?? '',
          end.durationMs,
          JSON.stringify(cutOutput(end.output, { maxBytes: options.maxOutputBytes })),
          end.error ?? '',
          ttl,
          id,
          end.limitExceeded ?? '',
        ],
      );
    },
    async get(owner, id, tailLines) {
      const record = await read(owner, id, false);
      if (record === undefined) return undefined;
      const durationMs =
        record.state === 'running'
          ? Math.max(record.durationMs, Date.now() - record.startedAt)
          : record.durationMs;
      return { ...record, durationMs, output: cutOutput(record.output, { tailLines }) };
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
      const running = await connection.script(DROP, [ownerKey(owner)], [prefix]);
      if (!Array.isArray(running)) return;
      for (let i = 0; i + 1 < running.length; i += 2) {
        await askCancel(String(running[i]), String(running[i + 1]));
      }
    },
    async countRunning() {
      ensureOpen();
      return Number(await connection.script(COUNT, [connection.key(RUNNING_INDEX)], [prefix, ttl]));
    },
    async newestRunning(limit) {
      ensureOpen();
      if (limit <= 0) return [];
      const flat = await connection.script(
        NEWEST_RUNNING,
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
