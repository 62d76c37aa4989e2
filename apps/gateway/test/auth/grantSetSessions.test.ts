import { parseConfig } from '@skillgate/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { type ProviderClient, startTestProvider, type TestProvider } from '../helpers/oidcProvider.js';
import { openSession, post } from '../helpers/rawHttp.js';
import { EXAMPLES_ROOT, PROBE_ROOT, REPO_ROOT } from '../helpers/testGateway.js';

// sessions.max_per_principal counted per grant set: an OAuth principal's id carries its grant set, so a client
// asking its provider for tokens with other scope subsets got a new session cap with each one (four subsets,
// cap 2: eight sessions held). It now counts per subject, as the rate limit, stream and slot caps do.
const AGENT: ProviderClient = {
  id: 'session-agent',
  secret: 'session-agent-secret-0123456789',
  scopes: ['mcp', 'skills:text', 'skills:probe'],
};
const OTHER: ProviderClient = { id: 'other-agent', secret: 'other-agent-secret-0123456789', scopes: ['mcp'] };
const AUDIENCE = 'https://sessions.example.test/mcp';
const MAX_PER_PRINCIPAL = 2;
const SCOPE_SETS = ['mcp', 'mcp skills:text', 'mcp skills:probe', 'mcp skills:text skills:probe'];

let idp: TestProvider;
let gateway: Gateway;
let url: URL;
beforeAll(async () => {
  idp = await startTestProvider([AGENT, OTHER]);
  const config = parseConfig(
    {
      server: { public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT, PROBE_ROOT] },
      sessions: { max_per_principal: MAX_PER_PRINCIPAL },
      auth: {
        oauth: {
          issuer: idp.issuer,
          audience: AUDIENCE,
          required_scopes: ['mcp'],
          grants: [
            { scope: 'skills:text', skills: ['text-stats'] },
            { scope: 'skills:probe', skills: ['gateway-probe'] },
          ],
        },
      },
      rate_limit: { requests_per_second: 0 },
    },
    { baseDir: REPO_ROOT },
  );
  gateway = await createGateway(config, { env: process.env });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL('/mcp', base);
});
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
});

/** Whether a session still answers a ping with this token. */
const alive = async (session: string, token: string): Promise<boolean> => {
  const response = await post(
    url,
    { jsonrpc: '2.0', id: 9, method: 'ping' },
    { authorization: `Bearer ${token}`, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
  );
  await response.text();
  return response.status === 200;
};

describe('sessions.max_per_principal per OAuth subject', () => {
  it('a client rotating scope subsets holds at most its cap of sessions; another subject keeps its own', async () => {
    const other = await idp.token(OTHER, { resource: AUDIENCE, scope: 'mcp' });
    const theirs = [];
    for (let i = 0; i < MAX_PER_PRINCIPAL; i++)
      theirs.push(await openSession(url, { authorization: `Bearer ${other}` }));

    const tokens = await Promise.all(
      SCOPE_SETS.map((scope) => idp.token(AGENT, { resource: AUDIENCE, scope })),
    );
    const opened: Array<{ session: string; token: string }> = [];
    for (const token of tokens) {
      opened.push({ session: await openSession(url, { authorization: `Bearer ${token}` }), token });
    }
    const live = await Promise.all(opened.map((o) => alive(o.session, o.token)));
    // The subject's longest-idle sessions made room: its two newest are served, whatever grant set opened them.
    expect(live).toEqual([false, false, true, true]);
    // The other subject's sessions were not touched.
    expect(await Promise.all(theirs.map((s) => alive(s, other)))).toEqual([true, true]);
  });
});
