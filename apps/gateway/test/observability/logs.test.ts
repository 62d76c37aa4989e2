import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

const TOKEN = 'log-token-0123456789-secret';
const lines: string[] = [];
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      auth: { tokens: [{ name: 'agent-log', token_env: 'LOG_TEST_TOKEN' }] },
      // With auth, /metrics on the MCP port wants an admin token: scraped on its own port here.
      observability: { metrics_port: 0 },
    },
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

  it('writes no line per HTTP request at info (probes and MCP messages stay quiet)', async () => {
    const before = lines.length;
    for (let i = 0; i < 3; i++) await (await fetch(`${gw.base}/healthz`)).text();
    const c = await connectClient(gw.url, { token: TOKEN });
    await c.client.listTools();
    await c.close();
    // What is left is about the session, not about each request.
    expect(lines.slice(before).map((l) => JSON.parse(l).msg)).toEqual(['session opened']);
    expect(records().filter((r) => 'req' in r || 'res' in r)).toEqual([]);
  });

  it('never logs the token or argument values', () => {
    const all = lines.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('private words here');
  });
});

describe('request lines at debug', () => {
  it('writes exactly one line per HTTP request, with method, path, status, time, request id and principal', async () => {
    const debugLines: string[] = [];
    const debug = await startTestGateway(
      {
        logging: { level: 'debug' },
        auth: { tokens: [{ name: 'agent-log', token_env: 'LOG_TEST_TOKEN' }] },
      },
      { ...process.env, LOG_TEST_TOKEN: TOKEN },
      debugLines,
    );
    try {
      const before = debugLines.length;
      for (let i = 0; i < 3; i++) await (await fetch(`${debug.base}/healthz`)).text();
      const mcp = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
      await (await fetch(`${debug.url}?access_token=${TOKEN}`, mcp)).text();
      await (
        await fetch(debug.url, { ...mcp, headers: { ...mcp.headers, authorization: `Bearer ${TOKEN}` } })
      ).text();
      await (await fetch(`${debug.base}/nowhere`)).text();
      const requests = debugLines
        .slice(before)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((r) => 'req' in r || 'res' in r || r.msg === 'incoming request');
      expect(requests.map((r) => [r.level, r.req, r.res])).toEqual([
        ...Array(3).fill([
          20,
          expect.objectContaining({ method: 'GET', url: '/healthz' }),
          { statusCode: 200 },
        ]),
        [20, expect.objectContaining({ method: 'POST', url: '/mcp' }), { statusCode: 401 }],
        [20, expect.objectContaining({ method: 'POST', url: '/mcp' }), { statusCode: 400 }],
        [20, expect.objectContaining({ method: 'GET', url: '/nowhere' }), { statusCode: 404 }],
      ]);
      for (const r of requests)
        expect(r).toMatchObject({ reqId: expect.any(String), responseTime: expect.any(Number) });
      expect(requests[4]).toMatchObject({ principal: 'agent-log' });
      expect(debugLines.join('\n')).not.toContain(TOKEN);
    } finally {
      await debug.close();
    }
  });
});

describe('metrics', () => {
  it('counts tool calls by kind and outcome, unlocks, script runs and their durations, and rejections', async () => {
    await fetch(gw.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const text = await (await fetch(`${gw.metricsBase}/metrics`)).text();
    expect(text).toContain('skillgate_tool_calls_total{kind="get_info",outcome="ok"} 1');
    expect(text).toContain('skillgate_tool_calls_total{kind="run",outcome="ok"} 1');
    expect(text).toMatch(/skillgate_unlocks_total 1\n/);
    expect(text).toContain('skillgate_script_runs_total{status="ok"} 1');
    expect(text).toContain('skillgate_script_duration_seconds_count{mode="sync"} 1');
    expect(text).toContain('skillgate_rejected_requests_total{reason="unauthorized"} 1');
  });
});
