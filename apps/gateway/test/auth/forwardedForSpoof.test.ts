import { randomBytes } from 'node:crypto';
import { type Haproxy, startHaproxy } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IntrospectingGateway, startIntrospectingGateway } from '../helpers/introspectingGateway.js';
import type { ProviderClient, TestProvider } from '../helpers/oidcProvider.js';
import { modernToolsList } from '../helpers/rawHttp.js';

// The failed-attempt budget is per client address; with server.trust_proxy the address comes from
// X-Forwarded-For. These attacks write that header themselves (or rotate through their IPv6 /64) to get a new
// budget on every request and make the gateway introspect without end.
const AGENT: ProviderClient = {
  id: 'spoof-agent',
  secret: 'spoof-agent-secret-0123456789',
  scopes: ['mcp'],
  opaque: true,
};
const PER_MINUTE = 3;
const ATTEMPTS = 12;

let relay: IntrospectingGateway;
let idp: TestProvider;
let proxy: Haproxy;
beforeAll(async () => {
  relay = await startIntrospectingGateway({
    agents: [AGENT],
    audience: 'https://spoof.example.test/mcp',
    failedAttemptsPerMinute: PER_MINUTE,
    trustProxy: true,
  });
  idp = relay.idp;
  // The reference deployment's balancer (configs/haproxy.cfg) in front of the gateway.
  proxy = await startHaproxy({ ports: [Number(new URL(relay.base).port)] });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await relay?.close();
});

/** A 2026-07-28 tools/list with a new random opaque token, sent to `base` with the given X-Forwarded-For. */
const randomTokenList = (base: string, forwardedFor: string) =>
  modernToolsList(new URL('/mcp', base), randomBytes(24).toString('hex'), {
    'x-forwarded-for': forwardedFor,
  });

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
      statuses.push((await randomTokenList(relay.base, address)).status);
    }
    expect(statuses.slice(0, PER_MINUTE)).toEqual(Array(PER_MINUTE).fill(401));
    expect(new Set(statuses.slice(PER_MINUTE))).toEqual(new Set([429]));
    expect(idp.introspections() - before).toBe(PER_MINUTE);
    // Another /64 has its own budget.
    expect((await randomTokenList(relay.base, '2001:db8:7:43::1')).status).toBe(401);
  });
});
