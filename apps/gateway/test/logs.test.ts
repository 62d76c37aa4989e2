import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from './helpers/testGateway.js';

const TOKEN = 'log-token-0123456789-secret';
const lines: string[] = [];
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(
    { auth: { tokens: [{ name: 'agent-log', token_env: 'LOG_TEST_TOKEN' }] } },
    { ...process.env, LOG_TEST_TOKEN: TOKEN },
    lines,
  );
  const c = await connectClient(gw.url, { token: TOKEN });
  await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
  await c.client.callTool({
    name: 'skill_text-stats_run_stats_py',
    arguments: { stdin: 'private words here' },
  });
  await c.close();
});
afterAll(async () => {
  await gw.close();
});

const records = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

describe('structured logs', () => {
  it('writes one audit line per tool call with principal, session, tool, outcome and duration', () => {
    const audits = records().filter((r) => r.audit === 'tool_call');
    expect(audits.map((a) => a.tool)).toEqual(['skill_text-stats_get_info', 'skill_text-stats_run_stats_py']);
    for (const audit of audits) {
      expect(audit).toMatchObject({ principal: 'agent-log', outcome: 'ok' });
      expect(typeof audit.session).toBe('string');
      expect(typeof audit.duration_ms).toBe('number');
      expect(audit).not.toHaveProperty('arguments');
    }
  });

  it('tags request lines with a request id and the principal', () => {
    const completed = records().filter((r) => r.msg === 'request completed');
    expect(completed.length).toBeGreaterThan(0);
    for (const line of completed)
      expect(line).toMatchObject({ reqId: expect.any(String), principal: 'agent-log' });
  });

  it('never logs the token or argument values', () => {
    const all = lines.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('private words here');
  });
});

describe('metrics', () => {
  it('counts tool calls by kind and outcome, unlocks, script runs and their durations, and rejections', async () => {
    await fetch(gw.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const text = await (await fetch(`${gw.base}/metrics`)).text();
    expect(text).toContain('skillgate_tool_calls_total{kind="get_info",outcome="ok"} 1');
    expect(text).toContain('skillgate_tool_calls_total{kind="run",outcome="ok"} 1');
    expect(text).toMatch(/skillgate_unlocks_total 1\n/);
    expect(text).toContain('skillgate_script_runs_total{status="ok"} 1');
    expect(text).toContain('skillgate_script_duration_seconds_count{mode="sync"} 1');
    expect(text).toContain('skillgate_rejected_requests_total{reason="unauthorized"} 1');
  });
});
