import { describe, expect, it } from 'vitest';
import { createRecentCalls, type RecentCall } from '../../../src/observability/recentCalls.js';

const call = (n: number): RecentCall => ({
  at: n,
  principal: 'p',
  era: 'legacy',
  tool: `tool_${n}`,
  kind: 'read',
  outcome: 'ok',
  durationMs: 1,
});

describe('createRecentCalls', () => {
  it('keeps only the last `capacity` calls, newest first, and counts every call', () => {
    const ring = createRecentCalls(3);
    expect(ring.newest()).toEqual([]);
    for (let n = 1; n <= 7; n++) ring.record(call(n));
    expect(ring.newest().map((c) => c.at)).toEqual([7, 6, 5]);
    expect(ring.newest(2).map((c) => c.at)).toEqual([7, 6]);
    expect(ring.total).toBe(7);
  });

  it('lists what it has before the ring is full', () => {
    const ring = createRecentCalls(200);
    ring.record(call(1));
    ring.record(call(2));
    expect(ring.newest().map((c) => c.at)).toEqual([2, 1]);
  });
});
