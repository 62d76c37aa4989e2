import { randomBytes } from 'node:crypto';
import { parseConfig } from '@skillgate/config';
import { type Haproxy, startHaproxy } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../src/index.js';
import { type ProviderClient, startTestProvider, type TestProvider } from './helpers/oidcProvider.js';
import { post } from './helpers/rawHttp.js';
import { EXAMPLES_ROOT, REPO_ROOT } from './helpers/testGateway.js';

// The failed-attempt budget is per client address; with server.trust_proxy the address comes from
// X-Forwarded-For. These attacks write that header themselves (or rotate through their IPv6 /64) to get a new
// budget on every request and make the gateway introspect without end.
const SECRET = 'spoof-test-client-secret-0123456789';
const AGENT: ProviderClient = { id: 'spoof-agent', secret: SECRET, scopes: ['mcp'], opaque: true };
const GATEWAY_CLIENT: ProviderClient = { id: 'gateway', secret: SECRET, scopes: ['mcp'] };
const PER_MINUTE = 3;
const ATTEMPTS = 12;

let idp: TestProvider;
let gateway: Gateway;
let proxy: Haproxy;
beforeAll(async () => {
  idp = await startTestProvider([AGENT, GATEWAY_CLIENT]);
  const config = parseConfig(
    {
      server: { trust_proxy: true, public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT] },
      auth: {
        oauth: {
          issuer: idp.issuer,
          audience: 'https://spoof.example.test/mcp',
          required_scopes: ['mcp'],
          principal_claim: 'client_id',
          failed_attempts_per_minute: PER_MINUTE,
          introspection: {
            endpoint: `${idp.issuer}/token/introspection`,
            client_id_env: 'SPOOF_CLIENT_ID',
            client_secret_env: 'SPOOF_CLIENT_SECRET',
          },
        },
      },
      rate_limit: { requests_per_second: 0 },
    },
    { baseDir: REPO_ROOT },
  );
  gateway = await createGateway(config, {
    env: { ...process.env, SPOOF_CLIENT_ID: GATEWAY_CLIENT.id, SPOOF_CLIENT_SECRET: SECRET },
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  // The reference deployment's balancer (configs/haproxy.cfg) in front of the gateway.
  proxy = await startHaproxy({ ports: [Number(new URL(base).port)] });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await gateway?.close();
  await idp?.close();
});

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
/** A 2026-07-28 tools/list with a new random opaque token, sent to `base` with the given X-Forwarded-For. */
const randomTokenList = (base: string, forwardedFor: string) =>
  post(
    new URL('/mcp', base),
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
    {
      authorization: `Bearer ${randomBytes(24).toString('hex')}`,
      'x-forwarded-for': forwardedFor,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
  );

describe('failed-attempt budget against forged client addresses', () => {
  it('a client behind the balancer writing its own X-Forwarded-For gets no new budget per request', async () => {
    const before = idp.introspections();
    const statuses: number[] = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      statuses.push((await randomTokenList(proxy.base, `198.18.${i}.${i + 1}`)).status);
    }
    // The balancer appends the real peer (127.0.0.1): that one address spends one budget.
    expect(statuses.slice(0, PER_MINUTE)).toEqual(Array(PER_MINUTE).fill(401));
    expect(new Set(statuses.slice(PER_MINUTE))).toEqual(new Set([429]));
    expect(idp.introspections() - before).toBe(PER_MINUTE);
  });

  it('a client rotating through the addresses of its IPv6 /64 spends one budget', async () => {
    const before = idp.introspections();
    const statuses: number[] = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      // The test speaks as the trusted proxy here: the forwarded address is the client's own.
      const address = `2001:db8:7:42:${(i + 1).toString(16)}:${randomBytes(2).toString('hex')}::1`;
      statuses.push((await randomTokenList(gatewayBase(), address)).status);
    }
    expect(statuses.slice(0, PER_MINUTE)).toEqual(Array(PER_MINUTE).fill(401));
    expect(new Set(statuses.slice(PER_MINUTE))).toEqual(new Set([429]));
    expect(idp.introspections() - before).toBe(PER_MINUTE);
    // Another /64 has its own budget.
    expect((await randomTokenList(gatewayBase(), '2001:db8:7:43::1')).status).toBe(401);
  });
});

function gatewayBase(): string {
  const address = gateway.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('gateway is not listening');
  return `http://127.0.0.1:${address.port}`;
}
