import { createStateBackend } from '@skillgate/state';
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';
import { createSecretRedactor } from '../../../src/observability/redactSecrets.js';
import { createUsageCounter, type UsageCounter } from '../../../src/observability/usageCounter.js';

const GAUGES = {
  skillgate_sessions_open: 0,
  skillgate_scripts_running: 0,
  skillgate_scripts_queued: 0,
  skillgate_skills_loaded: 0,
};

describe('skill usage counter', () => {
  let counter: UsageCounter | undefined;
  let state: ReturnType<typeof createStateBackend> | undefined;
  afterEach(async () => {
    await counter?.close();
    await state?.close();
  });

  it('counts per principal, skill and event across flushes, and a skill idle for a flush counts again', async () => {
    state = createStateBackend({
      backend: 'memory',
      keyPrefix: 'test:',
      sessions: { ttlMs: 60_000, maxSessions: 10, maxPerPrincipal: 10 },
      jobs: { ttlMs: 60_000, maxRunningPerOwner: 1 },
      rateLimit: { requestsPerSecond: 0, burst: 0 },
    });
    const metrics = createMetrics({ processMetrics: false });
    counter = createUsageCounter({
      store: state.usage,
      metrics,
      keepQueries: false,
      redact: createSecretRedactor([]),
      maxQueryChars: 100,
      flushMs: 60_000,
      onError: () => {},
    });
    counter.record('alice', { skill: 'pdf', event: 'info' });
    counter.record('alice', { skill: 'pdf', event: 'info' });
    counter.record('bob', { skill: 'pdf', event: 'info' });
    counter.record('alice', { skill: 'pdf', event: 'read' });
    await counter.flush();
    // A flush in which pdf/read was not used drops its entry; the next call must still count.
    counter.record('alice', { skill: 'pdf', event: 'info' });
    await counter.flush();
    counter.record('alice', { skill: 'pdf', event: 'read' });
    const totals = await counter.totals();
    const n = (principal: string, event: string) =>
      totals.counts
        .filter((c) => c.principal === principal && c.skill === 'pdf' && c.event === event)
        .reduce((sum, c) => sum + c.n, 0);
    expect(n('alice', 'info')).toBe(3);
    expect(n('bob', 'info')).toBe(1);
    expect(n('alice', 'read')).toBe(2);
    const text = await metrics.render(GAUGES);
    expect(text).toContain('skillgate_skill_usage_total{event="info",skill="pdf"} 4\n');
    expect(text).toContain('skillgate_skill_usage_total{event="read",skill="pdf"} 2\n');
  });
});
