import { parseConfig } from '@skillgate/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { type ProviderClient, startTestProvider, type TestProvider } from '../helpers/oidcProvider.js';
import { modernToolsList } from '../helpers/rawHttp.js';
import { EXAMPLES_ROOT, PROBE_ROOT, REPO_ROOT } from '../helpers/testGateway.js';

// An OAuth principal's id carries its grant set (so each set has its own sessions and views), and budgets
// were keyed by that id: a client that asked its provider for tokens with other scope subsets got a new
// rate-limit bucket (and new listen-stream and slot caps) with each one.
const SECRET = 'budget-test-client-secret-0123456789';
const AGENT: ProviderClient = {
  id: 'budget-agent',
  secret: SECRET,
  scopes: ['mcp', 'skills:text', 'skills:probe'],
};
const AUDIENCE = 'https://budgets.example.test/mcp';
const BURST = 3;
const SCOPE_SETS = ['mcp', 'mcp skills:text', 'mcp skills:probe', 'mcp skills:text skills:probe'];

let idp: TestProvider;
let gateway: Gateway;
let url: URL;
beforeAll(async () => {
  idp = await startTestProvider([AGENT]);
  const config = parseConfig(
    {
      server: { public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT, PROBE_ROOT] },
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
      // A bucket that does not refill within the test: what a principal may send is its burst.
      rate_limit: { requests_per_second: 0.001, burst: BURST },
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

const list = (token: string) => modernToolsList(url, token);

describe('rate-limit budget per OAuth subject', () => {
  it('a client rotating tokens with different scope subsets shares one rate-limit bucket', async () => {
    const tokens = await Promise.all(
      SCOPE_SETS.map((scope) => idp.token(AGENT, { resource: AUDIENCE, scope })),
    );
    const statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      for (const token of tokens) statuses.push((await list(token)).status);
    }
    // Eight requests from one subject: its burst is served, the rest wait, whichever token they carry.
    expect(statuses.filter((s) => s === 200)).toHaveLength(BURST);
    expect(statuses.filter((s) => s === 429)).toHaveLength(statuses.length - BURST);
  });
});
