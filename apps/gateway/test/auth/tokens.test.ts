import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeBody, messagesOf, openSession, post } from '../helpers/rawHttp.js';
import {
  connectClient,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

const TOKEN_A = 'token-a-0123456789abcdef';
const TOKEN_B = 'token-b-0123456789abcdef';
const TOKEN_OPS = 'token-ops-0123456789abcdef';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      skills: { async_enabled: true },
      auth: {
        tokens: [
          { name: 'agent-a', token_env: 'TEST_TOKEN_A', skills: ['text-stats', 'gateway-probe'] },
          {
            name: 'agent-b',
            token_sha256: createHash('sha256').update(TOKEN_B).digest('hex'),
            skills: ['log-*'],
          },
          { name: 'ops', token_env: 'TEST_TOKEN_OPS', skills: ['*'] },
        ],
      },
      rate_limit: { requests_per_second: 5, burst: 40 },
      clients: [{ match: { principal: 'ops' }, disclosure: 'eager' }],
    },
    { ...process.env, TEST_TOKEN_A: TOKEN_A, TEST_TOKEN_OPS: TOKEN_OPS },
  );
});
afterAll(async () => {
  await gw.close();
});

describe('bearer tokens', () => {
  it('answers 401 with WWW-Authenticate when the token is missing or wrong', async () => {
    const missing = await post(gw.url, initializeBody());
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await post(gw.url, initializeBody(), { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const basic = await post(gw.url, initializeBody(), { authorization: `Basic ${TOKEN_A}` });
    expect(basic.status).toBe(401);
  });

  it('accepts a token given by env and one given as sha256', async () => {
    const a = await connectClient(gw.url, { token: TOKEN_A });
    const b = await connectClient(gw.url, { token: TOKEN_B });
    expect(await toolNames(a.client)).toContain('skill_text-stats_get_info');
    expect(await toolNames(b.client)).toEqual(['skill_log-triage_get_info']);
    await a.close();
    await b.close();
  });
});

describe('per-principal skill access', () => {
  it('filters tools/list, instructions and calls by the allow-list', async () => {
    const b = await connectClient(gw.url, { token: TOKEN_B });
    expect(b.client.getInstructions()).toContain('log-triage');
    expect(b.client.getInstructions()).not.toContain('text-stats');
    await expect(
      b.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} }),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      b.client.callTool({ name: 'skill_text-stats_read_stats_py', arguments: {} }),
    ).rejects.toMatchObject({ code: -32602 });
    const info = await b.client.callTool({ name: 'skill_log-triage_get_info', arguments: {} });
    expect(textOf(info)).toContain('skill_log-triage_run_triage_sh');
    await b.close();
  });

  it('hides a session from another principal: its id answers 404', async () => {
    const session = await openSession(gw.url, { authorization: `Bearer ${TOKEN_A}` });
    const foreign = await post(
      gw.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        authorization: `Bearer ${TOKEN_B}`,
        'mcp-session-id': session,
      },
    );
    expect(foreign.status).toBe(404);
    const own = await post(
      gw.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        authorization: `Bearer ${TOKEN_A}`,
        'mcp-session-id': session,
      },
    );
    expect(own.status).toBe(200);
    expect((await messagesOf(own))[0]).toHaveProperty('result.tools');
  });

  it('reports a job id of another principal as not found', async () => {
    const a = await connectClient(gw.url, { token: TOKEN_A });
    await a.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const started = await a.client.callTool({
      name: 'skill_gateway-probe_run_async_slow_py',
      arguments: { args: ['--seconds', '0.3'] },
    });
    const jobId = (started.structuredContent as { job_id: string }).job_id;
    const ops = await connectClient(gw.url, { token: TOKEN_OPS });
    const status = await ops.client.callTool({
      name: 'skill_get_async_status',
      arguments: { job_id: jobId },
    });
    expect(status.isError).toBe(true);
    expect(textOf(status)).toMatch(/no job/i);
    await a.close();
    await ops.close();
  });

  it('picks the disclosure mode by principal through a client profile', async () => {
    const ops = await connectClient(gw.url, { token: TOKEN_OPS });
    expect(await toolNames(ops.client)).toContain('skill_text-stats_run_stats_py');
    await ops.close();
  });

  it('keeps scripts away from the token variables', async () => {
    const a = await connectClient(gw.url, { token: TOKEN_A });
    await a.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const result = await a.client.callTool({ name: 'skill_gateway-probe_run_env_py', arguments: {} });
    const out = (result.structuredContent as { stdout: string }).stdout;
    expect(out).not.toContain(TOKEN_A);
    expect(out).not.toContain('TEST_TOKEN_A');
    await a.close();
  });
});

describe('rate limit', () => {
  it('answers 429 with Retry-After to a flooding principal while another keeps working', async () => {
    const responses = await Promise.all(
      Array.from({ length: 60 }, () =>
        post(gw.url, initializeBody(), { authorization: `Bearer ${TOKEN_B}` }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    await Promise.all(responses.map((r) => r.body?.cancel()));
    expect(statuses).toContain(429);
    const limited = responses.find((r) => r.status === 429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const other = await post(gw.url, initializeBody(), { authorization: `Bearer ${TOKEN_OPS}` });
    expect(other.status).toBe(200);
    await other.body?.cancel();
  });
});

describe('a gateway without tokens', () => {
  const lines: string[] = [];
  let open: TestGateway;
  beforeAll(async () => {
    open = await startTestGateway({}, process.env, lines);
  });
  afterAll(async () => {
    await open.close();
  });

  it('ignores an Authorization header (as the README client set-ups send) and logs that once', async () => {
    const withToken = await connectClient(open.url, { token: 'whatever-the-client-was-given' });
    expect(await toolNames(withToken.client)).toContain('skill_text-stats_get_info');
    const info = await withToken.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    expect(info.isError).not.toBe(true);
    await withToken.close();
    for (const authorization of ['Bearer other-token', 'Basic dXNlcjpwYXNz', 'garbage']) {
      const response = await post(open.url, initializeBody(), { authorization });
      expect(response.status, authorization).toBe(200);
      await response.body?.cancel();
    }
    const ignored = lines.filter((l) => l.includes('no auth tokens are configured'));
    expect(ignored).toHaveLength(1);
    expect(JSON.parse(ignored[0] ?? '{}')).toMatchObject({ level: 40 });
    expect(lines.join('\n')).not.toContain('whatever-the-client-was-given');
  });

  it('still serves clients that send no header', async () => {
    const plain = await connectClient(open.url);
    expect(await toolNames(plain.client)).toContain('skill_text-stats_get_info');
    await plain.close();
  });
});
