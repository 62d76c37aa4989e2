import { StateError } from '../stateError.js';

const SCHEMES = 'a redis://, rediss:// or unix: URL';

/**
 * What ioredis connects to for a Redis URL: a `redis://` or `rediss://` URL as is, a `unix:` URL
 * (`unix:/run/redis.sock`, `unix:///run/redis.sock`, query such as `?db=2` kept) as the socket path ioredis
 * takes. Anything else is STATE_MISCONFIGURED at start-up: ioredis would read `http://host` as a host name
 * and retry it forever. The message never repeats the URL, which may hold a password.
 */
export function redisTarget(url: string | undefined): string {
  if (url === undefined || url.trim() === '') {
    throw new StateError('STATE_MISCONFIGURED', `no Redis URL is set (state.backend is redis; ${SCHEMES})`);
  }
  if (/^rediss?:\/\/[^/]/i.test(url)) return url;
  const unix = /^unix:(?:\/\/)?(\/[^?]*)(\?.*)?$/i.exec(url);
  if (unix?.[1] !== undefined) return `${unix[1]}${unix[2] ?? ''}`;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  throw new StateError(
    'STATE_MISCONFIGURED',
    `the Redis URL must be ${SCHEMES}, got ${scheme === undefined ? 'no scheme' : `"${scheme}:"`}`,
  );
}
