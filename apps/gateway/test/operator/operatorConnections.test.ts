import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type HttpTestUpstream, startHttpUpstream } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// docs/credentials.md, "people see and undo it": the operator page counts connections per provider and never shows a
// value; skillgate_credential_events_total counts connects and disconnects per provider and outcome.

const ADMIN = `admin-${randomBytes(12).toString('hex')}`;
const PEOPLE = ['ann', 'ben', 'cat'].map((name) => ({
  name,
  token: `${name}-${randomBytes(12).toString('hex')}`,
}));
const VALUES = PEOPLE.map((p) => `secret-of-${p.name}-${randomBytes(8).toString('hex')}`);

let upstream: HttpTestUpstream;
let gw: TestGateway;

beforeAll(async () => {
  upstream = await startHttpUpstream();
  const port = await freePort();
  gw = await startTestGateway(
    {
      server: { public_url: `http://127.0.0.1:${port}` },
      auth: {
        tokens: [
          { name: 'ops', token_env: 'T_OPS', admin: true },
          ...PEOPLE.map((p) => ({ name: p.name, token_env: `T_${p.name.toUpperCase()}` })),
        ],
      },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      credentials: {
        store: 'file',
        file: join(mkdtempSync(join(tmpdir(), 'sg-opconn-')), 'credentials.json'),
        keys: [{ id: 'k1', env: 'SG_KEY' }],
        providers: [
          { id: 'acme', secret: { label: 'ACME key' } },
          { id: 'zeta', secret: { label: 'Zeta key' } },
        ],
      },
      upstreams: [
        { id: 'acme', url: upstream.url, auth: { provider: 'acme', header: 'X-API-Key' } },
        { id: 'zeta', url: upstream.url, auth: { provider: 'zeta', header: 'X-API-Key' } },
      ],
    },
    {
      ...process.env,
      T_OPS: ADMIN,
      ...Object.fromEntries(PEOPLE.map((p) => [`T_${p.name.toUpperCase()}`, p.token])),
      SG_KEY: randomBytes(32).toString('base64'),
    },
    undefined,
    { port },
  );
});
afterAll(async () => {
  await gw?.close();
  await upstream?.stop();
});

const connect = async (token: string, upstreamId: string, value: string): Promise<void> => {
  const c = await connectClient(gw.url, { token });
  const asked = await c.client.callTool({ name: `skill_${upstreamId}_call_echo`, arguments: { text: 'x' } });
  await c.close();
  const link = String((asked.structuredContent as { url?: string } | undefined)?.url);
  expect((await new ConnectBrowser(gw.base).connectSecretWithToken(link, token, value)).status).toBe(200);
};

/** A series of skillgate_credential_events_total (labels in the exposition's order: kind, outcome, provider). */
const metric = async (kind: string, provider: string): Promise<number> => {
  const labels = `kind="${kind}",outcome="ok",provider="${provider}"`;
  const text = await (
    await fetch(`${gw.metricsBase ?? gw.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
  ).text();
  const line = text.split('\n').find((l) => l.startsWith(`skillgate_credential_events_total{${labels}}`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
};

describe('connections on the operator page and in the metrics', () => {
  it('counts connections per provider, never a value, and counts the events', async () => {
    const page = async () =>
      (await fetch(`${gw.base}/`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    expect(await page()).toContain('No one has connected an account yet.');

    await Promise.all(PEOPLE.map((p, i) => connect(p.token, 'acme', VALUES[i] ?? '')));
    await connect(PEOPLE[0]?.token ?? '', 'zeta', VALUES[0] ?? '');
    const removed = await fetch(`${gw.base}/connections/acme`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${PEOPLE[2]?.token}` },
    });
    expect(removed.status).toBe(204);

    const html = await page();
    const section = html.slice(html.indexOf('<section id="connections">'));
    expect(section).toMatch(/data-provider="acme".*?<td[^>]*>2<\/td>/s);
    expect(section).toMatch(/data-provider="zeta".*?<td[^>]*>1<\/td>/s);
    for (const secret of [...VALUES, ...PEOPLE.map((p) => p.token)]) expect(html).not.toContain(secret);

    expect(await metric('connect', 'acme')).toBe(3);
    expect(await metric('connect', 'zeta')).toBe(1);
    expect(await metric('disconnect', 'acme')).toBe(1);
  });
});
