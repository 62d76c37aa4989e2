import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// With auth configured and no observability.metrics_port, GET /metrics on the MCP port answered anyone who
// could reach the endpoint (974 scrapes a second) and, since usage counting, named every skill used
// (skill="..."). On the MCP port it now takes an admin token, as the operator page; the metrics port's own
// listener stays tokenless for the scraper.

const AGENT = 'metrics-agent-token-4e1b7a9c';
const ADMIN = 'metrics-admin-token-8c3f2d6b';
const ENV = { ...process.env, METRICS_AGENT: AGENT, METRICS_ADMIN: ADMIN };
const AUTH = {
  tokens: [
    { name: 'agent', token_env: 'METRICS_AGENT', skills: ['*'] },
    { name: 'ops', token_env: 'METRICS_ADMIN', skills: ['*'], admin: true },
  ],
};
const USED = 'skill="gateway-probe"';

const scrape = async (base: string, token?: string) => {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await fetch(`${base}/metrics`, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

describe('/metrics on the MCP port with auth configured', () => {
  let gw: TestGateway;
  const logLines: string[] = [];
  beforeAll(async () => {
    gw = await startTestGateway({ auth: AUTH }, ENV, logLines);
    // A tenant uses a skill: its name is now in the usage series.
    const agent = await connectClient(gw.url, { token: AGENT });
    await agent.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    await agent.close();
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('refuses a scrape without a token (401, with the challenge) and names no skill', async () => {
    const { status, headers, text } = await scrape(gw.base);
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(text).not.toContain('gateway-probe');
  });

  it('refuses a tenant token that is not an admin one (403) and a wrong token (401)', async () => {
    const agent = await scrape(gw.base, AGENT);
    expect(agent.status).toBe(403);
    expect(agent.text).toContain('NOT_ADMIN');
    expect(agent.text).not.toContain('gateway-probe');
    expect((await scrape(gw.base, 'not-a-token-at-all-0000')).status).toBe(401);
  });

  it('serves an admin token, while the tenant is served meanwhile', async () => {
    const admin = await scrape(gw.base, ADMIN);
    expect(admin.status).toBe(200);
    expect(admin.text).toContain(USED);
    const agent = await connectClient(gw.url, { token: AGENT });
    try {
      expect((await agent.client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await agent.close();
    }
  });

  it('says at start-up that /metrics on the MCP port needs an admin token', () => {
    const line = logLines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.metrics !== undefined);
    expect(line).toMatchObject({ metrics: 'admin_token' });
  });
});

describe('/metrics on its own port with auth configured', () => {
  it('serves the scraper without a token there and nothing on the MCP port', async () => {
    const logLines: string[] = [];
    const gw = await startTestGateway({ auth: AUTH, observability: { metrics_port: 0 } }, ENV, logLines);
    try {
      const own = await scrape(gw.metricsBase ?? '');
      expect(own.status).toBe(200);
      expect(own.text).toContain('# TYPE skillgate_skills_loaded gauge');
      expect((await scrape(gw.base, ADMIN)).status).toBe(404);
      expect(logLines.some((l) => l.includes('"metrics":"admin_token"'))).toBe(false);
    } finally {
      await gw.close();
    }
  });
});
