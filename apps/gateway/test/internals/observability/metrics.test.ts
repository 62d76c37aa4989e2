import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';

const GAUGES = {
  skillgate_sessions_open: 2,
  skillgate_scripts_running: 1,
  skillgate_scripts_queued: 0,
  skillgate_skills_loaded: 7,
};

describe('metrics exposition (prom-client)', () => {
  it('keeps the series names and label order of the hand-written exposition', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.inc('skillgate_tool_calls_total', { outcome: 'ok', kind: 'run' });
    metrics.inc('skillgate_tool_calls_total', { kind: 'run', outcome: 'ok' });
    metrics.inc('skillgate_unlocks_total');
    metrics.inc('skillgate_rejected_requests_total', { reason: 'a "quoted"\nreason' }, 3);
    metrics.observeScriptDuration(0.2, { mode: 'sync' });
    const text = await metrics.render(GAUGES);
    expect(text).toContain('# TYPE skillgate_tool_calls_total counter');
    expect(text).toContain('skillgate_tool_calls_total{kind="run",outcome="ok"} 2\n');
    expect(text).toContain('skillgate_unlocks_total 1\n');
    expect(text).toContain('skillgate_rejected_requests_total{reason="a \\"quoted\\"\\nreason"} 3\n');
    expect(text).toContain('# TYPE skillgate_sessions_open gauge');
    expect(text).toContain('skillgate_sessions_open 2\n');
    expect(text).toContain('skillgate_skills_loaded 7\n');
    expect(text).toContain('# TYPE skillgate_script_duration_seconds histogram');
    expect(text).toContain('skillgate_script_duration_seconds_bucket{le="0.1",mode="sync"} 0\n');
    expect(text).toContain('skillgate_script_duration_seconds_bucket{le="0.25",mode="sync"} 1\n');
    expect(text).toContain('skillgate_script_duration_seconds_bucket{le="+Inf",mode="sync"} 1\n');
    expect(text).toContain('skillgate_script_duration_seconds_count{mode="sync"} 1\n');
    // A counter nobody incremented has no series yet.
    expect(text).not.toContain('skillgate_catalog_reloads_total');
  });

  it('counts a bound counter into the same series as inc, shown only from its first count', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const direct = metrics.counter('skillgate_modern_requests_total', { path: 'direct' });
    metrics.counter('skillgate_session_requests_total', { path: 'sdk' });
    expect(await metrics.render(GAUGES)).not.toContain('skillgate_modern_requests_total');
    direct();
    direct(2);
    metrics.inc('skillgate_modern_requests_total', { path: 'direct' });
    metrics.inc('skillgate_modern_requests_total', { path: 'sdk' });
    const text = await metrics.render(GAUGES);
    expect(text).toContain('skillgate_modern_requests_total{path="direct"} 4\n');
    expect(text).toContain('skillgate_modern_requests_total{path="sdk"} 1\n');
    // Bound but never counted: no series.
    expect(text).not.toContain('skillgate_session_requests_total');
  });

  it('exports process metrics unless turned off', async () => {
    expect(await createMetrics().render(GAUGES)).toContain('process_cpu_seconds_total');
    expect(await createMetrics({ processMetrics: false }).render(GAUGES)).not.toContain('process_cpu');
  });

  it('adds the shared figures from a short cache, and leaves them out when they cannot be read', async () => {
    let reads = 0;
    let failing = false;
    const metrics = createMetrics({
      processMetrics: false,
      localJobsRunning: () => 1,
      sharedCacheMs: 60_000,
      sharedFigures: async () => {
        reads++;
        if (failing) throw new Error('store down');
        return { sessionsOpen: 5, jobsRunning: 3 };
      },
    });
    const [first, second] = await Promise.all([metrics.render(GAUGES), metrics.render(GAUGES)]);
    expect(first).toContain('skillgate_jobs_running 1\n');
    expect(first).toContain('skillgate_shared_sessions_open 5\n');
    expect(first).toContain('skillgate_shared_jobs_running 3\n');
    expect(second).toBe(first);
    expect(reads).toBe(1);

    const uncached = createMetrics({
      processMetrics: false,
      sharedCacheMs: 0,
      sharedFigures: async () => {
        reads++;
        if (failing) throw new Error('store down');
        return { sessionsOpen: 5, jobsRunning: 3 };
      },
    });
    failing = true;
    const down = await uncached.render(GAUGES);
    expect(down).not.toContain('skillgate_shared_');
    expect(down).toContain('skillgate_sessions_open 2\n');
    failing = false;
    expect(await uncached.render(GAUGES)).toContain('skillgate_shared_jobs_running 3\n');
  });
});
