import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IntrospectingGateway, startIntrospectingGateway } from '../helpers/introspectingGateway.js';
import type { ProviderClient, TestProvider } from '../helpers/oidcProvider.js';
import { modernToolsList } from '../helpers/rawHttp.js';

// The failed-attempt budget counted failures once they had happened: tokens sent all at once were all
// checked (each an introspection with the gateway's credentials) before the first failure was counted.
const AGENT: ProviderClient = {
  id: 'burst-agent',
  secret: 'burst-agent-secret-0123456789',
  scopes: ['mcp'],
  opaque: true,
};
const PER_MINUTE = 4;
const BURST = 40;
const AUDIENCE = 'https://burst.example.test/mcp';

let relay: IntrospectingGateway;
let idp: TestProvider;
beforeAll(async () => {
  // The test speaks as the trusted proxy: X-Forwarded-For names each client's address.
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
