import { randomBytes } from 'node:crypto';
import { parseConfig } from '@skillgate/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../src/index.js';
import { type ProviderClient, startTestProvider, type TestProvider } from './helpers/oidcProvider.js';
import { post } from './helpers/rawHttp.js';
import { EXAMPLES_ROOT, REPO_ROOT } from './helpers/testGateway.js';

const SECRET = 'relay-test-client-secret-0123456789';
const AGENT: ProviderClient = { id: 'relay-agent', secret: SECRET, scopes: ['mcp'], opaque: true };
const GATEWAY_CLIENT: ProviderClient = { id: 'gateway', secret: SECRET, scopes: ['mcp'] };
const PER_MINUTE = 5;

let idp: TestProvider;
let gateway: Gateway;
let url: URL;
beforeAll(async () => {
  idp = await startTestProvider([AGENT, GATEWAY_CLIENT]);
  const config = parseConfig(
    {
      // The X-Forwarded-For of a trusted proxy names each client's address, as behind a load balancer.
      server: { trust_proxy: true, public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT] },
      auth: {
        oauth: {
          issuer: idp.issuer,
          audience: 'https://relay.example.test/mcp',
          required_scopes: ['mcp'],
          // Client-credentials introspection answers carry no sub: the client is the principal.
          principal_claim: 'client_id',
          failed_attempts_per_minute: PER_MINUTE,
          introspection: {
            endpoint: `${idp.issuer}/token/introspection`,
            client_id_env: 'RELAY_CLIENT_ID',
            client_secret_env: 'RELAY_CLIENT_SECRET',
          },
        },
      },
      rate_limit: { requests_per_second: 0 },
    },
    { baseDir: REPO_ROOT },
  );
  gateway = await createGateway(config, {
    env: { ...process.env, RELAY_CLIENT_ID: GATEWAY_CLIENT.id, RELAY_CLIENT_SECRET: SECRET },
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

describe('anonymous introspection relay', () => {
  it('an unauthenticated client sending random opaque tokens drives at most its budget of introspections', async () => {
    const before = idp.introspections();
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++)
      statuses.push((await list(randomBytes(24).toString('hex'), '203.0.113.7')).status);
    // Its first attempts are checked (and refused); then it waits, and the authorization server is not asked.
    expect(statuses.slice(0, PER_MINUTE)).toEqual(Array(PER_MINUTE).fill(401));
    expect(new Set(statuses.slice(PER_MINUTE))).toEqual(new Set([429]));
    expect(idp.introspections() - before).toBe(PER_MINUTE);
    const waited = await list(randomBytes(24).toString('hex'), '203.0.113.7');
    expect(Number(waited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('a bad token sent again is refused from memory, without another introspection', async () => {
    const before = idp.introspections();
    const bad = randomBytes(24).toString('hex');
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push((await list(bad, '198.51.100.20')).status);
    expect(answers).toEqual([401, 401, 401]);
    expect(idp.introspections() - before).toBe(1);
  });

  it('another client, from another address, is served meanwhile with its own good token', async () => {
    const good = await idp.token(AGENT, { resource: 'https://relay.example.test/mcp', scope: 'mcp' });
    // Tokens from the flooding address are still waiting...
    expect((await list(randomBytes(24).toString('hex'), '203.0.113.7')).status).toBe(429);
    // ...while a tenant elsewhere is checked and served.
    const served = await list(good, '192.0.2.44');
    expect(served.status).toBe(200);
    // Once known, its token is served from memory even from the flooding address (a shared NAT).
    expect((await list(good, '203.0.113.7')).status).toBe(200);
  });
});
