import { describe, expect, it } from 'vitest';
import { createOversizeGuard } from '../src/calls/oversizeGuard.js';

function guard(maxEntries = 100) {
  let now = 0;
  const g = createOversizeGuard({
    strikes: 3,
    windowMs: 60_000,
    refuseMs: 30_000,
    maxEntries,
    now: () => now,
  });
  return { g, advance: (ms: number) => (now += ms) };
}

describe('createOversizeGuard', () => {
  it('refuses a principal a tool after three strikes within the window, for refuseMs, then lets it try again', () => {
    const { g, advance } = guard();
    g.struck('a', 'flood');
    g.struck('a', 'flood');
    expect(g.refusedFor('a', 'flood')).toBe(0);
    g.struck('a', 'flood');
    expect(g.refusedFor('a', 'flood')).toBe(30_000);
    expect(g.refusedFor('b', 'flood')).toBe(0);
    expect(g.refusedFor('a', 'other')).toBe(0);
    advance(30_000);
    expect(g.refusedFor('a', 'flood')).toBe(0);
  });

  it('forgets strikes older than the window', () => {
    const { g, advance } = guard();
    g.struck('a', 'flood');
    g.struck('a', 'flood');
    advance(60_000);
    g.struck('a', 'flood');
    expect(g.refusedFor('a', 'flood')).toBe(0);
  });

  it('remembers at most maxEntries principals and tools, the least recently struck forgotten first', () => {
    const { g } = guard(2);
    for (const tool of ['one', 'two']) for (let i = 0; i < 3; i++) g.struck('a', tool);
    g.struck('b', 'three');
    expect(g.refusedFor('a', 'one')).toBe(0);
    expect(g.refusedFor('a', 'two')).toBe(30_000);
  });
});
