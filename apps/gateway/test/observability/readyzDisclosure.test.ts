import { request } from 'node:http';
import { join } from 'node:path';
import { freePort } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// /readyz needs no token (the kubelet sends none) and is on the MCP port, which a deployment exposes to every
// caller (deploy/kubernetes's NetworkPolicy admits it from anywhere). It used to answer anyone with every
// upstream's id and last error (internal hosts and ports), every source and the paths of missing skill roots.
// With auth configured those are an admin's; the probe's summary stays open.

const AGENT = 'readyz-agent-token-5f2c8e1a';
const ADMIN = 'readyz-admin-token-9b7d4c3e';
const MISSING_ROOT = join(EXAMPLES_ROOT, '..', 'internal-team-skills-missing');

describe('/readyz with auth configured', () => {
  let gw: TestGateway;
  let upstreamPort: number;

  beforeAll(async () => {
    upstreamPort = await freePort();
    gw = await startTestGateway(
      {
        skills: { roots: [EXAMPLES_ROOT, MISSING_ROOT], allow_missing_roots: true },
        upstreams: [{ id: 'billing-internal', url: `http://127.0.0.1:${upstreamPort}/mcp` }],
        auth: {
          tokens: [
            { name: 'agent', token_env: 'READYZ_AGENT', skills: ['*'] },
            { name: 'ops', token_env: 'READYZ_ADMIN', skills: ['*'], admin: true },
          ],
        },
      },
      { ...process.env, READYZ_AGENT: AGENT, READYZ_ADMIN: ADMIN },
    );
  });
  afterAll(async () => {
    await gw?.close();
  });

  const readyz = async (token?: string): Promise<{ status: number; text: string }> => {
    const headers: Record<string, string> = token === undefined ? {} : { Authorization: `Bearer ${token}` };
    const response = await fetch(`${gw.base}/readyz`, { headers });
    return { status: response.status, text: await response.text() };
  };

  it.each([
    ['no token (a probe)', undefined],
    ['an agent token', AGENT],
    ['a wrong token', 'not-a-token-at-all-0000'],
  ])('names no upstream, internal host or missing root path to %s', async (_who, token) => {
    const { status, text } = await readyz(token);
    expect(status).toBe(200);
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'ready', skills: expect.any(Number) });
    expect(body.sandbox).toBeDefined();
    expect(text).not.toContain('billing-internal');
    expect(text).not.toContain(String(upstreamPort));
    expect(text).not.toContain('internal-team-skills-missing');
  });

  it('gives an admin token the details: upstreams with their errors and the missing roots', async () => {
    const { status, text } = await readyz(ADMIN);
    expect(status).toBe(200);
    const body = JSON.parse(text) as { upstreams: Array<{ id: string }>; missing_roots: string[] };
    expect(body.upstreams.map((u) => u.id)).toEqual(['billing-internal']);
    expect(body.missing_roots.join()).toContain('internal-team-skills-missing');
  });
});

// DNS rebinding: a web page the developer opens points its own name at 127.0.0.1 and reads the tokenless local
// gateway with its own Host header. /mcp and the operator page refuse that Host; /readyz's names (paths of
// missing roots) and /metrics (skill and upstream names) used to answer it.
/** GET with a Host header of the caller's choosing (fetch cannot set one): status and body. */
function getWithHost(url: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each([
  ['on the MCP port', false],
  ['on observability.metrics_port', true],
])('a tokenless loopback gateway, metrics %s', (_where, ownPort) => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      skills: { roots: [EXAMPLES_ROOT, MISSING_ROOT], allow_missing_roots: true },
      ...(ownPort ? { observability: { metrics_port: 0 } } : {}),
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('a page that rebinds its name (Host: attacker.example) reads neither /readyz names nor /metrics', async () => {
    const ready = await getWithHost(`${gw.base}/readyz`, 'attacker.example');
    expect(ready.status).toBe(200);
    expect(ready.text).not.toContain('internal-team-skills-missing');
    const metricsBase = gw.metricsBase ?? gw.base;
    const metrics = await getWithHost(`${metricsBase}/metrics`, 'attacker.example');
    expect(metrics.status).toBe(403);
    expect(metrics.text).not.toContain('skillgate_');
    // The gateway's own address still gets everything.
    expect(await (await fetch(`${gw.base}/readyz`)).text()).toContain('internal-team-skills-missing');
    expect((await fetch(`${metricsBase}/metrics`)).status).toBe(200);
  });
});
