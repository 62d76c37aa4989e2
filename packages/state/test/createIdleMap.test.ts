import { describe, expect, it } from 'vitest';
import { createIdleMap } from '../src/sessions/createIdleMap.js';

describe('createIdleMap', () => {
  it('expires entries idle for the TTL, once each, and keeps touched ones', () => {
    let t = 0;
    const expired: string[] = [];
    const map = createIdleMap<string, number>({ ttlMs: 100, now: () => t, onExpire: (k) => expired.push(k) });
    map.set('a', 1);
    map.set('b', 2);
    t = 60;
    expect(map.get('a')).toBe(1);
    t = 120;
    map.sweep();
    expect(expired).toEqual(['b']);
    expect(map.peek('a')).toBe(1);
    t = 200;
    expect(map.get('a')).toBeUndefined();
    map.sweep();
    expect(expired).toEqual(['b', 'a']);
    expect(map.size).toBe(0);
    map.clear();
  });

  it("with refreshAfterMs, restarts a read entry's idle time at most that often: it expires early, never late", () => {
    let t = 0;
    const expired: string[] = [];
    const map = createIdleMap<string, number>({
      ttlMs: 1000,
      refreshAfterMs: 10,
      now: () => t,
      onExpire: (k) => expired.push(k),
    });
    map.set('a', 1);
    map.set('b', 2);
    // Read within 10 ms of its last refresh: 'a' keeps its timer (and its place before 'b').
    t = 9;
    expect(map.get('a')).toBe(1);
    t = 1000;
    map.sweep();
    expect(expired).toEqual(['a', 'b']);
    map.set('c', 3);
    // Read 10 ms after: the timer restarts.
    t = 1010;
    expect(map.get('c')).toBe(3);
    t = 2001;
    map.sweep();
    expect(expired).toEqual(['a', 'b']);
    t = 2010;
    map.sweep();
    expect(expired).toEqual(['a', 'b', 'c']);
    map.clear();
  });

  it('lets onExpire delete and add entries without losing count', () => {
    let t = 0;
    const map = createIdleMap<string, number>({
      ttlMs: 10,
      now: () => t,
      onExpire: (k) => {
        map.delete(k);
        map.set(`${k}'`, 0);
      },
    });
    for (let i = 0; i < 5; i++) map.set(`k${i}`, i);
    t = 10;
    map.sweep();
    expect([...map.entries()].map(([k]) => k)).toEqual(["k0'", "k1'", "k2'", "k3'", "k4'"]);
    expect(map.size).toBe(5);
    map.clear();
  });

  it('does not report a deleted entry as expired', () => {
    let t = 0;
    const expired: string[] = [];
    const map = createIdleMap<string, number>({ ttlMs: 10, now: () => t, onExpire: (k) => expired.push(k) });
    map.set('a', 1);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    t = 50;
    map.sweep();
    expect(expired).toEqual([]);
  });
});
