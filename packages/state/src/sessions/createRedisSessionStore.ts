import type { RedisConnection } from '../redis/createRedisConnection.js';
import { redisScript } from '../redis/redisScript.js';
import { StateError } from '../stateError.js';
import { SessionError } from './sessionError.js';
import { parseSessionRecord } from './sessionRecordSchema.js';
import type { SessionRecord, SessionStore } from './types.js';

/** Options of createRedisSessionStore, from the `sessions` config section. */
export interface RedisSessionStoreOptions {
  readonly connection: RedisConnection;
  /** Idle time after which a session expires (Redis key expiry). */
  readonly ttlMs: number;
  /** Sessions open at once across every replica. */
  readonly maxSessions: number;
  readonly maxPerPrincipal: number;
  /** Called on every replica, once per expired session (the replica holding its stream closes it). */
  readonly onExpire?: (session: { readonly id: string }) => void;
  /** Called on every replica (this one too) when a session was deleted, so each closes its copy of it. */
  readonly onDeleted?: (session: { readonly id: string }) => void;
  /** How often this replica looks for expired sessions (default ttl/4, between 50 ms and 5 s). */
  readonly sweepIntervalMs?: number;
}

// Server time, so that every replica agrees on what has expired whatever its own clock says.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// Removes expired ids from the index and returns them: the script that removes an id owns its expiry.
const EXPIRE = `
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 500)
for _, id in ipairs(expired) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('DEL', ARGV[1] .. 'unlocked:' .. id)
end`;

// KEYS: index, principal index, session key; ARGV: prefix, id, record, ttl, max sessions, max per principal.
// At the principal's cap its longest-idle session (lowest expiry in the principal index) is ended as DELETE
// would end it, and returned: {0, expired, evicted id, evicted record}; that replaces a session, so only
// otherwise does the global cap apply.
// The shebang (Redis 7) makes Redis refuse the whole script with OOM when it is at its maxmemory: a script
// without one is only refused at its first write, and the expiry sweep below writes before the record does.
const CREATE = redisScript(`#!lua
${NOW}${EXPIRE}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local evicted = false
local evictedRecord = false
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0)
  evicted = oldest[1]
  local sk = ARGV[1] .. 'session:' .. evicted
  evictedRecord = redis.call('GET', sk)
  redis.call('DEL', sk)
  redis.call('ZREM', KEYS[1], evicted)
  redis.call('ZREM', KEYS[2], evicted)
  if evictedRecord then
    local ok, rec = pcall(cjson.decode, evictedRecord)
    if ok and type(rec) == 'table' and rec.scopeKey == evicted then
      redis.call('DEL', ARGV[1] .. 'unlocked:' .. evicted)
    end
  end
elseif redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then
  return {1, expired}
end
local exp = now + tonumber(ARGV[4])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', KEYS[1], exp, ARGV[2])
redis.call('ZADD', KEYS[2], exp, ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return {0, expired, evicted, evictedRecord}`);

// KEYS: session key, index; ARGV: prefix, id, ttl, with unlocks ('1' or '0'). Returns the record and restarts
// its idle time; with unlocks, also the members of the session's unlock set (whose idle time restarts too):
// what a request needs of the store, in one round trip.
const TOUCH = redisScript(`${NOW}
local v = redis.call('GET', KEYS[1])
if not v then return false end
local exp = now + tonumber(ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], exp, ARGV[2])
local members = {}
local ok, rec = pcall(cjson.decode, v)
if ok and type(rec) == 'table' then
  local who = type(rec.capKey) == 'string' and rec.capKey or rec.principal
  if type(who) == 'string' then
    local pk = ARGV[1] .. 'principal:' .. who .. ':sessions'
    redis.call('ZADD', pk, exp, ARGV[2])
    redis.call('PEXPIRE', pk, ARGV[3])
  end
  if ARGV[4] == '1' and type(rec.scopeKey) == 'string' then
    local uk = ARGV[1] .. 'unlocked:' .. rec.scopeKey
    members = redis.call('ZRANGE', uk, 0, -1)
    if #members > 0 then redis.call('PEXPIRE', uk, ARGV[3]) end
  end
end
if ARGV[4] == '1' then return {v, members} end
return v`);

// KEYS: session key, index; ARGV: prefix, id.
const DELETE = redisScript(`
local v = redis.call('GET', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
if not v then return 0 end
redis.call('DEL', KEYS[1])
local ok, rec = pcall(cjson.decode, v)
if ok and type(rec) == 'table' then
  local who = type(rec.capKey) == 'string' and rec.capKey or rec.principal
  if type(who) == 'string' then
    redis.call('ZREM', ARGV[1] .. 'principal:' .. who .. ':sessions', ARGV[2])
  end
  if rec.scopeKey == ARGV[2] then redis.call('DEL', ARGV[1] .. 'unlocked:' .. ARGV[2]) end
end
return 1`);

// An unlock set is a sorted set scored by a counter: the highest score is the most recently used skill.
const NEXT_SCORE = `local top = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local score = 1
if top[2] then score = tonumber(top[2]) + 1 end`;

// KEYS: unlock set; ARGV: skill, ttl, budget ('' for none), then name/cost pairs. Marks the skill most recently
// used; with a budget, drops the least recently used others (that cost something) until the costs fit.
// Returns {1 if newly unlocked else 0, dropped names}.
const UNLOCK = redisScript(`${NEXT_SCORE}
local added = redis.call('ZADD', KEYS[1], score, ARGV[1])
local dropped = {}
if ARGV[3] ~= '' then
  local costs = {}
  for i = 4, #ARGV, 2 do costs[ARGV[i]] = tonumber(ARGV[i + 1]) end
  local members = redis.call('ZRANGE', KEYS[1], 0, -1)
  local total = 0
  for _, m in ipairs(members) do total = total + (costs[m] or 0) end
  local budget = tonumber(ARGV[3])
  for _, m in ipairs(members) do
    if total <= budget then break end
    local c = costs[m] or 0
    if m ~= ARGV[1] and c > 0 then
      redis.call('ZREM', KEYS[1], m)
      total = total - c
      table.insert(dropped, m)
    end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {added, dropped}`);

// KEYS: unlock set; ARGV: skill, ttl. Marks an unlocked skill most recently used.
const USE = redisScript(`if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
${NEXT_SCORE}
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`);

// KEYS: index; ARGV: prefix.
const SWEEP = redisScript(`${NOW}${EXPIRE}
return expired`);

// KEYS: index.
const COUNT = redisScript(`${NOW}
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')`);

// KEYS: index; ARGV: prefix, limit. The records of the most recently used live sessions (highest expiry first).
const RECENT = redisScript(`${NOW}
local ids = redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', '(' .. now, 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local v = redis.call('GET', ARGV[1] .. 'session:' .. id)
  if v then table.insert(out, v) end
end
return out`);

const EXPIRED_CHANNEL = 'sessions:expired';
const DELETED_CHANNEL = 'sessions:deleted';

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'string');

/**
 * SessionStore in Redis: a session is a JSON string key with the idle TTL as its Redis expiry; an index sorted
 * set (and one per principal) scored by expiry time holds the caps across replicas, checked and written in one
 * Lua script. See docs/scale-out.md for the key layout.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { connection } = options;
  const prefix = connection.key('');
  const index = connection.key('sessions');
  const sessionKey = (id: string): string => connection.key('session', id);
  const principalKey = (principal: string): string => connection.key('principal', principal, 'sessions');
  const unlocksKey = (scopeKey: string): string => connection.key('unlocked', scopeKey);
  const ttl = String(options.ttlMs);
  let closed = false;

  const announce = (expired: unknown): void => {
    if (!isStringArray(expired) || expired.length === 0) return;
    connection.publish(EXPIRED_CHANNEL, JSON.stringify(expired)).catch(() => {
      // Redis went away between the script and the publish: the sessions are gone for every replica anyway,
      // and their streams are closed by the next request that does not find them.
    });
  };

  const unsubscribe = connection.subscribe(EXPIRED_CHANNEL, (message) => {
    let ids: unknown;
    try {
      ids = JSON.parse(message);
    } catch {
      return;
    }
    if (!isStringArray(ids)) return;
    for (const id of ids) options.onExpire?.({ id });
  });

  const unsubscribeDeleted = connection.subscribe(DELETED_CHANNEL, (id) => options.onDeleted?.({ id }));

  const sweep = (): void => {
    if (!connection.isHealthy()) return;
    connection.script(SWEEP, [index], [prefix]).then(announce, () => {
      // Unavailable now; the next sweep (or create) expires them.
    });
  };
  const interval = options.sweepIntervalMs ?? Math.min(5000, Math.max(50, Math.floor(options.ttlMs / 4)));
  const timer = setInterval(sweep, interval);
  timer.unref();

  const ensureOpen = (): void => {
    if (closed) throw new StateError('STATE_CLOSED', 'the session store is closed');
  };

  return {
    async create(record) {
      ensureOpen();
      const result = await connection.script(
        CREATE,
        [index, principalKey(record.capKey ?? record.principal), sessionKey(record.id)],
        [prefix, record.id, JSON.stringify(record), ttl, options.maxSessions, options.maxPerPrincipal],
      );
      const [outcome, expired, evictedId, evictedJson] = Array.isArray(result) ? result : [];
      announce(expired);
      if (outcome === 1) {
        throw new SessionError('SESSION_LIMIT', `the gateway already holds ${options.maxSessions} sessions`);
      }
      if (typeof evictedId !== 'string') return undefined;
      // Every replica closes its copy of the evicted session, as after a DELETE.
      connection.publish(DELETED_CHANNEL, evictedId).catch(() => {
        // Redis went away: other replicas close their copies when a request misses it.
      });
      return typeof evictedJson === 'string' ? parseSessionRecord(evictedJson) : undefined;
    },
    async get(id): Promise<SessionRecord | undefined> {
      ensureOpen();
      const json = await connection.script(TOUCH, [sessionKey(id), index], [prefix, id, ttl, '0']);
      if (typeof json !== 'string') return undefined;
      const record = parseSessionRecord(json);
      if (record === undefined) throw new StateError('STATE_INVALID', `session ${id} is not a valid record`);
      return record;
    },
    async touch(id) {
      ensureOpen();
      const reply = await connection.script(TOUCH, [sessionKey(id), index], [prefix, id, ttl, '1']);
      if (!Array.isArray(reply)) return undefined;
      const [json, members] = reply;
      const record = typeof json === 'string' ? parseSessionRecord(json) : undefined;
      if (record === undefined) throw new StateError('STATE_INVALID', `session ${id} is not a valid record`);
      return { record, unlocked: new Set(isStringArray(members) ? members : []) };
    },
    async delete(id) {
      ensureOpen();
      const deleted = (await connection.script(DELETE, [sessionKey(id), index], [prefix, id])) === 1;
      if (deleted) {
        connection.publish(DELETED_CHANNEL, id).catch(() => {
          // Redis went away after the delete: other replicas close their copies when a request misses it.
        });
      }
      return deleted;
    },
    async unlock(scopeKey, skill, limit) {
      ensureOpen();
      const costs = limit === undefined ? [] : [...limit.costs].flat();
      const budget = limit === undefined ? '' : limit.budget;
      const reply = await connection.script(UNLOCK, [unlocksKey(scopeKey)], [skill, ttl, budget, ...costs]);
      const [added, dropped] = Array.isArray(reply) ? reply : [];
      return { added: added === 1, dropped: isStringArray(dropped) ? dropped : [] };
    },
    async use(scopeKey, skill) {
      ensureOpen();
      await connection.script(USE, [unlocksKey(scopeKey)], [skill, ttl]);
    },
    async unlocked(scopeKey) {
      ensureOpen();
      const key = unlocksKey(scopeKey);
      // Least recently used first (lowest score).
      const replies = await connection.run((c) => c.multi().zrange(key, '0', '-1').pexpire(key, ttl).exec());
      const members = replies?.[0]?.[1];
      return new Set(isStringArray(members) ? members : []);
    },
    async forget(skills) {
      ensureOpen();
      if (skills.size === 0) return [];
      const names = [...skills];
      const match = `${unlocksKey('').replace(/[*?[\]\\]/g, '\\$&')}*`;
      const changed: string[] = [];
      // A reload is rare and the unlock sets are few (one per live session or principal): a SCAN is fine.
      let cursor = '0';
      do {
        const [next, keys] = await connection.run((c) => c.scan(cursor, 'MATCH', match, 'COUNT', 500));
        cursor = next;
        if (keys.length === 0) continue;
        const replies = await connection.run((c) => {
          const pipeline = c.pipeline();
          for (const key of keys) pipeline.zrem(key, ...names);
          return pipeline.exec();
        });
        keys.forEach((key, i) => {
          const removed = replies?.[i]?.[1];
          if (typeof removed === 'number' && removed > 0) changed.push(key.slice(unlocksKey('').length));
        });
      } while (cursor !== '0');
      return changed;
    },
    async count() {
      ensureOpen();
      const n = await connection.script(COUNT, [index], []);
      return typeof n === 'number' ? n : 0;
    },
    async recent(limit) {
      ensureOpen();
      if (limit <= 0) return [];
      const found = await connection.script(RECENT, [index], [prefix, limit]);
      // A record another version wrote in a shape this one cannot read is left out, not an error: a listing.
      return (isStringArray(found) ? found : []).flatMap((json) => parseSessionRecord(json) ?? []);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      unsubscribe();
      unsubscribeDeleted();
    },
  };
}
