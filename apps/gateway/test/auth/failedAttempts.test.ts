import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IntrospectingGateway, startIntrospectingGateway } from '../helpers/introspectingGateway.js';
import type { ProviderClient, TestProvider } from '../helpers/oidcProvider.js';
import { modernToolsList } from '../helpers/rawHttp.js';

const AUDIENCE = 'https://relay.example.test/mcp';
const AGENT: ProviderClient = {
  id: 'relay-agent',
  secret: 'relay-agent-secret-0123456789',
  scopes: ['mcp'],
  opaque: true,
};
const PER_MINUTE = 5;

let relay: IntrospectingGateway;
let idp: TestProvider;
beforeAll(async () => {
  // The X-Forwarded-For of a trusted proxy names each client's address, as behind a load balancer.
  relay = await startIntrospectingGateway({
    agents: [AGENT],
    audience: AUDIENCE,
    failedAttemptsPerMinute: PER_MINUTE,
    trustProxy: true,
  });
  idp = relay.idp;
});
afterAll(async () => {
  await relay?.close();
});

/** A 2026-07-28 tools/list with `token`, sent from the client address `from`. */
const list = (token: string, from: string) => modernToolsList(relay.url, token, { 'x-forwarded-for': from });

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
    const good = await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp' });
    // Tokens from the flooding address are still waiting...
    expect((await list(randomBytes(24).toString('hex'), '203.0.113.7')).status).toBe(429);
    // ...while a tenant elsewhere is checked and served.
    const served = await list(good, '192.0.2.44');
    expect(served.status).toBe(200);
    // Once known, its token is served from memory even from the flooding address (a shared NAT).
    expect((await list(good, '203.0.113.7')).status).toBe(200);
  });
});
