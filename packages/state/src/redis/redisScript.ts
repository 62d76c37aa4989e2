import { createHash } from 'node:crypto';

/** A Lua script and its SHA1, so it is sent once per connection and run by hash afterwards. */
export interface RedisScript {
  readonly lua: string;
  readonly sha: string;
}

/** Wraps Lua source for RedisConnection.script. */
export function redisScript(lua: string): RedisScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}
