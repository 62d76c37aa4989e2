import { randomBytes } from 'node:crypto';
import { parseConfig } from '@skillgate/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../src/index.js';
import { type ProviderClient, startTestProvider, type TestProvider } from './helpers/oidcProvider.js';
import { post } from './helpers/rawHttp.js';
import { EXAMPLES_ROOT, REPO_ROOT } from './helpers/testGateway.js';

// The failed-attempt budget counted failures once they had happened: tokens sent all at once were all
// checked (each an introspection with the gateway's credentials) before the first failure was counted.
const SECRET = 'burst-test-client-secret-0123456789';
const AGENT: ProviderClient = { id: 'burst-agent', secret: SECRET, scopes: ['mcp'], opaque: true };
const GATEWAY_CLIENT: ProviderClient = { id: 'gateway', secret: SECRET, scopes: ['mcp'] };
const PER_MINUTE = 4;
const BURST = 40;
const AUDIENCE = 'https://burst.example.test/mcp';

let idp: TestProvider;
let gateway: Gateway;
let url: URL;
beforeAll(async () => {
  idp = await startTestProvider([AGENT, GATEWAY_CLIENT]);
  const config = parseConfig(
    {
      // The test speaks as the trusted proxy: X-Forwarded-For names each client's address.
      server: { trust_proxy: true, public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT] },
      auth: {
        oauth: {
          issuer: idp.issuer,
          audience: AUDIENCE,
          required_scopes: ['mcp'],
          principal_claim: 'client_id',
          failed_attempts_per_minute: PER_MINUTE,
          introspection: {
            endpoint: `${idp.issuer}/token/introspection`,
            client_id_env: 'BURST_CLIENT_ID',
            client_secret_env: 'BURST_CLIENT_SECRET',
          },
        },
      },
      rate_limit: { requests_per_second: 0 },
    },
    { baseDir: REPO_ROOT },
  );
  gateway = await createGateway(config, {
    env: { ...process.env, BURST_CLIENT_ID: GATEWAY_CLIENT.id, BURST_CLIENT_SECRET: SECRET },
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL('/mcp', base);
});
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
});

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** A 2026-07-28 tools/list with `token`, sent from the client address `from`. */
const list = (token: string, from: string) =>
  post(
    url,
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
    {
      authorization: `Bearer ${token}`,
      'x-forwarded-for': from,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
  );
const statusesOf = async (requests: readonly Promise<Response>[]): Promise<number[]> =>
  (await Promise.all(requests)).map((r) => r.status).sort();

describe('failed-attempt budget against bursts', () => {
  it('a burst of random opaque tokens sent at once drives at most the budget of introspections', async () => {
    const before = idp.introspections();
    const statuses = await statusesOf(
      Array.from({ length: BURST }, () => list(randomBytes(24).toString('hex'), '203.0.113.50')),
    );
    expect(idp.introspections() - before).toBe(PER_MINUTE);
    expect(statuses).toEqual([...Array(PER_MINUTE).fill(401), ...Array(BURST - PER_MINUTE).fill(429)]);
  });

  it('one bad token sent by many requests at once is introspected once', async () => {
    const before = idp.introspections();
    const bad = randomBytes(24).toString('hex');
    const statuses = await statusesOf(Array.from({ length: BURST }, () => list(bad, '198.51.100.60')));
    expect(statuses).toEqual(Array(BURST).fill(401));
    expect(idp.introspections() - before).toBe(1);
  });

  it('a new good token sent by many requests at once is introspected once and serves them all', async () => {
    const good = await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp' });
    const before = idp.introspections();
    const statuses = await statusesOf(Array.from({ length: BURST }, () => list(good, '192.0.2.60')));
    expect(statuses).toEqual(Array(BURST).fill(200));
    expect(idp.introspections() - before).toBe(1);
  });
});
