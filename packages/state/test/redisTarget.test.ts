import { describe, expect, it } from 'vitest';
import { redisTarget } from '../src/index.js';

describe('redisTarget', () => {
  it.each([
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['rediss://user:secret@cache.example:6380/2', 'rediss://user:secret@cache.example:6380/2'],
    ['unix:/run/redis/redis.sock', '/run/redis/redis.sock'],
    ['unix:///run/redis/redis.sock?db=2', '/run/redis/redis.sock?db=2'],
  ])('takes %s', (url, target) => {
    expect(redisTarget(url)).toBe(target);
  });

  it.each([
    ['missing', undefined],
    ['empty', ' '],
    ['http', 'http://user:secret@127.0.0.1:6379'],
    ['a bare host', 'localhost:6379'],
    ['redis:// without a host', 'redis:///x'],
    ['unix: without a path', 'unix:relative.sock'],
  ])('refuses %s with STATE_MISCONFIGURED, never repeating the URL', (_label, url) => {
    let caught: unknown;
    try {
      redisTarget(url);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'STATE_MISCONFIGURED' });
    expect((caught as Error).message).not.toContain('secret');
  });
});
