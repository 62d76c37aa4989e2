import { type HttpTestUpstream, startHttpUpstream, TEST_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

const gateways: TestGateway[] = [];
const servers: HttpTestUpstream[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const CALLER_TOKEN = 'caller-token-5b1f0c9e7d';
const UPSTREAM_AUTH = 'Bearer upstream-own-credential';

interface RecordedRequest {
  method: string;
  headers: Record<string, string>;
}

describe('calls of upstream tools through the gateway', () => {
  it("never pass the caller's token or headers on: the upstream sees only its own credentials", async () => {
    const http = await startHttpUpstream();
    servers.push(http);
    const lines: string[] = [];
    const gw = await startTestGateway(
      {
        auth: { tokens: [{ name: 'agent-a', token_env: 'AGENT_A_TOKEN' }] },
        upstreams: [{ id: 'remote', url: http.url, headers_from_env: { Authorization: 'REMOTE_AUTH' } }],
        // With auth, /metrics on the MCP port wants an admin token: scraped on its own port here.
        observability: { metrics_port: 0 },
      },
      { ...process.env, AGENT_A_TOKEN: CALLER_TOKEN, REMOTE_AUTH: UPSTREAM_AUTH },
      lines,
    );
    gateways.push(gw);
    const client = await connectClient(gw.url, { token: CALLER_TOKEN, name: 'header-probe' });
    try {
      await client.client.callTool({ name: 'skill_remote_get_info', arguments: {} });
      const result = await client.client.callTool({ name: 'skill_remote_call_headers', arguments: {} });
      expect(result.isError).not.toBe(true);
      // Read from the base64 copy: the gateway replaces its configured secrets in what upstreams return.
      const { encoded } = result.structuredContent as { encoded: string };
      const requests = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as RecordedRequest[];
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        expect(request.headers.authorization).toBe(UPSTREAM_AUTH);
        expect(request.headers['mcp-session-id']).not.toBe(client.transport.sessionId);
        expect(request.headers['user-agent'] ?? '').not.toContain('header-probe');
      }
      expect(JSON.stringify(requests)).not.toContain(CALLER_TOKEN);

      // One audit line per call: principal, skill, upstream, tool, outcome, duration; metrics per upstream.
      const audit = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((l) => l.audit === 'tool_call' && l.tool === 'skill_remote_call_headers');
      expect(audit).toMatchObject({
        principal: 'agent-a',
        outcome: 'ok',
        upstream: { skill: 'remote', upstream: 'remote', tool: 'headers' },
        duration_ms: expect.any(Number),
      });
      expect(audit).not.toHaveProperty('arguments');
      const metrics = await (await fetch(`${gw.metricsBase}/metrics`)).text();
      expect(metrics).toMatch(/skillgate_upstream_calls_total\{outcome="ok",upstream="remote"\} 1/);
      expect(metrics).toMatch(/skillgate_upstream_call_duration_seconds_count\{upstream="remote"\} 1/);
    } finally {
      await client.close();
    }
  });

  it('never logs the arguments of an upstream call, even with logging.log_arguments (both eras)', async () => {
    const lines: string[] = [];
    const gw = await startTestGateway(
      {
        logging: { log_arguments: true },
        upstreams: [{ id: 'local', command: [process.execPath, TEST_UPSTREAM] }],
      },
      process.env,
      lines,
    );
    gateways.push(gw);
    const legacy = await connectClient(gw.url);
    const modern = await connectV2(gw.url, { era: 'modern' });
    try {
      await legacy.client.callTool({ name: 'skill_local_get_info', arguments: {} });
      const echoed = await legacy.client.callTool({
        name: 'skill_local_call_echo',
        arguments: { text: 'secret-for-the-upstream-1' },
      });
      expect(textOf(echoed)).toBe('secret-for-the-upstream-1');
      const dispatched = await modern.client.callTool({
        name: 'call_skill_tool',
        arguments: { skill: 'local', tool: 'echo', arguments: { text: 'secret-for-the-upstream-2' } },
      });
      expect(dispatched.content).toEqual([{ type: 'text', text: 'secret-for-the-upstream-2' }]);
      // The setting still means what it says for the gateway's own tools.
      await legacy.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
      await legacy.client.callTool({
        name: 'skill_text-stats_run_stats_py',
        arguments: { stdin: 'words for the script' },
      });
      const audits = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.audit === 'tool_call');
      const byTool = (tool: string) => audits.find((a) => a.tool === tool);
      expect(byTool('skill_local_call_echo')).toMatchObject({
        upstream: { upstream: 'local', tool: 'echo' },
      });
      expect(byTool('skill_local_call_echo')).not.toHaveProperty('arguments');
      expect(byTool('call_skill_tool')).toMatchObject({ upstream: { upstream: 'local', tool: 'echo' } });
      expect(byTool('call_skill_tool')).not.toHaveProperty('arguments');
      expect(byTool('skill_text-stats_run_stats_py')).toMatchObject({
        arguments: { stdin: 'words for the script' },
      });
      expect(lines.join('\n')).not.toContain('secret-for-the-upstream');
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it('an upstream killed mid-call answers UPSTREAM_UNAVAILABLE; other upstreams keep working; it comes back', async () => {
    const http = await startHttpUpstream();
    const gw = await startTestGateway({
      upstreams: [
        { id: 'remote', url: http.url },
        { id: 'local', command: [process.execPath, TEST_UPSTREAM] },
      ],
    });
    gateways.push(gw);
    const client = await connectClient(gw.url);
    try {
      await client.client.callTool({ name: 'skill_remote_get_info', arguments: {} });
      await client.client.callTool({ name: 'skill_local_get_info', arguments: {} });
      const call = client.client.callTool({ name: 'skill_remote_call_sleep', arguments: { ms: 20_000 } });
      await waitFor(() => gw.gateway.inFlight.active > 0, {
        what: 'the call in flight',
        timeoutMs: 30_000,
      });
      await http.stop();
      const result = await call;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({
        reason: 'UPSTREAM_UNAVAILABLE',
        upstream: 'remote',
        tool: 'sleep',
      });
      const other = await client.client.callTool({
        name: 'skill_local_call_echo',
        arguments: { text: 'fine' },
      });
      expect(textOf(other)).toBe('fine');
      servers.push(await startHttpUpstream(['--port', String(http.port)]));
      await waitFor(() => gw.gateway.upstreams.snapshots()[0]?.state === 'ready', {
        what: 'reconnect',
        timeoutMs: 30_000,
      });
      const again = await client.client.callTool({
        name: 'skill_remote_call_echo',
        arguments: { text: 'back' },
      });
      expect(textOf(again)).toBe('back');
    } finally {
      await client.close();
    }
  });
});
