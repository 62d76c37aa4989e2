import { redisScript } from '../redis/redisScript.js';

/** Sorted set of the ids of running jobs (score: start time), for the running count across replicas. */
export const RUNNING_INDEX = 'running-jobs';

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
// max retained, heartbeat ttl, running ttl (how long a running job's keys live between two reports).
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
redis.call('PEXPIRE', KEYS[2], ARGV[12])
redis.call('ZADD', KEYS[1], ARGV[6], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[12])
redis.call('ZADD', ARGV[1] .. '${RUNNING_INDEX}', ARGV[6], ARGV[2])
return 0`);

// KEYS: job key; ARGV: prefix, replica, output (or ''), running ttl, id. Returns 1 when a cancel was asked (or
// the job is gone).
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

/** The Lua scripts of the Redis job store, each run atomically on the server (docs/scale-out.md). */
export const REDIS_JOB_SCRIPTS = {
  start: START,
  progress: PROGRESS,
  finish: FINISH,
  read: READ,
  drop: DROP,
  count: COUNT,
  newestRunning: NEWEST_RUNNING,
} as const;
