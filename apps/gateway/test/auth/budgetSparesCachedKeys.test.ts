import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IntrospectingGateway, startIntrospectingGateway } from '../helpers/introspectingGateway.js';
import type { ProviderClient, TestProvider } from '../helpers/oidcProvider.js';
import { modernToolsList } from '../helpers/rawHttp.js';

// The failed-attempt budget gated every token the gateway had not seen: after garbage tokens from one address
// (an office NAT, an agent platform's egress), a brand-new valid JWT from it, signed by a key the gateway had
// cached (checking it asks the identity provider nothing), got 429 for a minute. Only checks that ask the
// authorization server spend and wait on the budget.
const AUDIENCE = 'https://nat.example.test/mcp';
const JWT_AGENT: ProviderClient = {
  id: 'nat-jwt-agent',
  secret: 'nat-jwt-agent-secret-0123456789',
  scopes: ['mcp', 'other'],
};
const OPAQUE_AGENT: ProviderClient = {
  id: 'nat-opaque-agent',
  secret: 'nat-opaque-agent-secret-0123456789',
  scopes: ['mcp'],
  opaque: true,
};
const PER_MINUTE = 5;
const GARBAGE = 40;
const NAT = '203.0.113.80';

let relay: IntrospectingGateway;
let idp: TestProvider;
beforeAll(async () => {
  // The test speaks as the trusted proxy: X-Forwarded-For names each client's address.
  relay = await startIntrospectingGateway({
    agents: [JWT_AGENT, OPAQUE_AGENT],
    audience: AUDIENCE,
    failedAttemptsPerMinute: PER_MINUTE,
    trustProxy: true,
  });
  idp = relay.idp;
});
afterAll(async () => {
  await relay?.close();
});

/** A 2026-07-28 tools/list with `token` (none when empty), sent from the client address `from`. */
const list = (token: string, from: string) =>
  modernToolsList(relay.url, token, {
    'x-forwarded-for': from,
    ...(token === '' ? { authorization: '' } : {}),
  });
const garbage = () => randomBytes(24).toString('hex');

describe('failed-attempt budget and JWTs against cached keys', () => {
  it('after an address spent its budget, new JWTs from it signed by a cached key are answered on their merits', async () => {
    // The keys are cached: a first JWT from elsewhere is served.
    expect(
      (await list(await idp.token(JWT_AGENT, { resource: AUDIENCE, scope: 'mcp' }), '192.0.2.80')).status,
    ).toBe(200);
    const fetches = idp.jwksFetches();
    const statuses: number[] = [];
    for (let i = 0; i < GARBAGE; i++) statuses.push((await list(garbage(), NAT)).status);
    expect(statuses.slice(0, PER_MINUTE)).toEqual(Array(PER_MINUTE).fill(401));
    expect(new Set(statuses.slice(PER_MINUTE))).toEqual(new Set([429]));

    // A token that just refreshed, from the same address: served.
    const fresh = await idp.token(JWT_AGENT, { resource: AUDIENCE, scope: 'mcp' });
    expect((await list(fresh, NAT)).status).toBe(200);
    // One without the required scope: 403, not 429.
    const unscoped = await idp.token(JWT_AGENT, { resource: AUDIENCE, scope: 'other' });
    expect((await list(unscoped, NAT)).status).toBe(403);
    // Expired, or for another resource: 401, not 429.
    const seconds = Math.floor(Date.now() / 1000);
    const claims = { iss: idp.issuer, client_id: JWT_AGENT.id, scope: 'mcp', iat: seconds - 7200 };
    const expired = await idp.sign({ ...claims, aud: AUDIENCE, exp: seconds - 3600 });
    const elsewhere = await idp.sign({
      ...claims,
      aud: 'https://other.example.test/mcp',
      exp: seconds + 600,
    });
    const refused = [await list(expired, NAT), await list(elsewhere, NAT)];
    expect(refused.map((r) => r.status)).toEqual([401, 401]);
    expect(refused.map((r) => r.headers.get('www-authenticate'))).toEqual([
      expect.stringContaining('invalid_token'),
      expect.stringContaining('invalid_token'),
    ]);
    // None of it asked the provider for keys.
    expect(idp.jwksFetches()).toBe(fetches);
  });

  it('the introspection relay stays closed for that address while another tenant is served', async () => {
    const introspections = idp.introspections();
    const goodOpaque = await idp.token(OPAQUE_AGENT, { resource: AUDIENCE, scope: 'mcp' });
    // Any new opaque token from the spent address would cost an introspection: it waits, good or not.
    expect((await list(garbage(), NAT)).status).toBe(429);
    expect((await list(goodOpaque, NAT)).status).toBe(429);
    expect(idp.introspections()).toBe(introspections);
    // A tenant elsewhere is checked and served...
    expect((await list(goodOpaque, '192.0.2.81')).status).toBe(200);
    // ...and once known, its token is served from memory at the spent address too.
    expect((await list(goodOpaque, NAT)).status).toBe(200);
    expect(idp.introspections()).toBe(introspections + 1);
  });

  it('a request without a token never counts and never gets 429', async () => {
    const address = '198.51.100.80';
    const bare: number[] = [];
    for (let i = 0; i < 3 * PER_MINUTE; i++) bare.push((await list('', address)).status);
    expect(bare).toEqual(Array(3 * PER_MINUTE).fill(401));
    // The budget is whole: its checks are made, then it waits.
    const checked: number[] = [];
    for (let i = 0; i <= PER_MINUTE; i++) checked.push((await list(garbage(), address)).status);
    expect(checked).toEqual([...Array(PER_MINUTE).fill(401), 429]);
    // Spent, a request without a token is still told to authenticate.
    const after = await list('', address);
    expect(after.status).toBe(401);
    expect(after.headers.get('retry-after')).toBeNull();
  });
});
