import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type AuthorizationClient,
  type AuthorizationServer,
  type HttpTestUpstream,
  startAuthorizationServer,
  startHttpUpstream,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// docs/credentials.md, client_credentials: the gateway's own token, one token request however
// many calls wait, fetched again once after the upstream refuses it (401); and auth.discovery: a per-principal
// upstream is listed with the discovery credential, not a caller's.

const TOKENS = [`a-${randomBytes(12).toString('hex')}`, `b-${randomBytes(12).toString('hex')}`];
const REPORTS: AuthorizationClient = { id: 'skillgate-reports', secret: 'reports-secret-0123456789' };
const LISTER: AuthorizationClient = { id: 'skillgate-lister', secret: 'lister-secret-0123456789' };

let server: AuthorizationServer;
let reports: HttpTestUpstream;
let search: HttpTestUpstream;
let gw: TestGateway;

/** A client's config keys, its id and secret in `<prefix>_ID` / `<prefix>_SECRET` (set below). */
const client = (prefix: string) => ({
  token_endpoint: server.tokenEndpoint,
  client_id_env: `${prefix}_ID`,
  client_secret_env: `${prefix}_SECRET`,
});

beforeAll(async () => {
  server = await startAuthorizationServer({ clients: [REPORTS, LISTER] });
  [reports, search] = await Promise.all([
    startHttpUpstream(['--require-audience', server.issuer]),
    startHttpUpstream(['--require-audience', server.issuer]),
  ]);
  gw = await startTestGateway(
    {
      auth: {
        tokens: [
          { name: 'a', token_env: 'T_A' },
          { name: 'b', token_env: 'T_B' },
        ],
      },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      upstreams: [
        { id: 'reports', url: reports.url, auth: { client_credentials: client('R') } },
        {
          id: 'search',
          url: search.url,
          auth: {
            token_exchange: { ...client('R'), static_principals: 'deny' },
            discovery: { client_credentials: client('L') },
          },
        },
      ],
    },
    {
      ...process.env,
      T_A: TOKENS[0],
      T_B: TOKENS[1],
      R_ID: REPORTS.id,
      R_SECRET: REPORTS.secret,
      L_ID: LISTER.id,
      L_SECRET: LISTER.secret,
    },
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([reports?.stop(), search?.stop(), server?.close()]);
});

const structured = (result: unknown): Record<string, unknown> =>
  ((result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {}) as Record<
    string,
    unknown
  >;

/** The bearer tokens an upstream has received so far (its `headers` tool), in order. */
const bearersSeen = async (tool: string, token: string): Promise<string[]> => {
  const c = await connectClient(gw.url, { token });
  const result = await c.client.callTool({ name: tool, arguments: {} });
  await c.close();
  const requests = JSON.parse(Buffer.from(String(structured(result).encoded), 'base64').toString()) as Array<{
    headers: Record<string, string>;
  }>;
  const all = JSON.stringify(requests);
  for (const t of TOKENS) expect(all).not.toContain(t);
  return requests.flatMap((r) =>
    r.headers.authorization === undefined ? [] : [r.headers.authorization.replace(/^Bearer /, '')],
  );
};

const whoamiEverywhere = async (calls: number): Promise<Array<Record<string, unknown>>> => {
  const clients = await Promise.all(TOKENS.map((token) => connectClient(gw.url, { token })));
  const results = await Promise.all(
    Array.from({ length: calls }, (_, i) =>
      clients[i % clients.length]?.client.callTool({ name: 'skill_reports_call_whoami', arguments: {} }),
    ),
  );
  await Promise.all(clients.map((c) => c.close()));
  return results.map((r) => {
    expect(r?.isError).not.toBe(true);
    return structured(r);
  });
};

describe('an upstream with auth.client_credentials', () => {
  it('serves many concurrent calls of two principals with one token, and refetches it once after a 401', async () => {
    // The listing at start fetched the token already: concurrent calls use it.
    const atStart = server.tokenRequests('client_credentials');
    for (const claims of await whoamiEverywhere(8)) expect(claims.aud).toBe(reports.url);
    expect(server.tokenRequests('client_credentials')).toBe(atStart);

    // The upstream now refuses that token (revoked at the resource server): eight calls at once each get a
    // 401, and every one succeeds on its one retry with a single new token.
    const c = await connectClient(gw.url, { token: TOKENS[0] });
    expect(
      (await c.client.callTool({ name: 'skill_reports_call_refuse_token', arguments: {} })).isError,
    ).not.toBe(true);
    await c.close();
    for (const claims of await whoamiEverywhere(8)) expect(claims.aud).toBe(reports.url);
    expect(server.tokenRequests('client_credentials')).toBe(atStart + 1);

    // Every token the upstream got is the gateway's client's, for this upstream; exactly two distinct ones.
    const bearers = await bearersSeen('skill_reports_call_headers', TOKENS[1] ?? '');
    const distinct = [...new Set(bearers)];
    expect(distinct).toHaveLength(2);
    for (const bearer of distinct) {
      expect(await server.verify(bearer, reports.url)).toMatchObject({ client_id: REPORTS.id });
    }
  });

  it("lists a token-exchange upstream with auth.discovery's client-credentials token, never a caller's", async () => {
    const listing = await connectClient(gw.url, { token: TOKENS[0] });
    const names = (await listing.client.listTools()).tools.map((t) => t.name);
    await listing.close();
    expect(names).toContain('skill_search_call_whoami');
    // The upstream's own record, read directly with a token of its own audience (a static caller's call is
    // refused by the gateway before it reaches a token-exchange upstream).
    const own = await server.token(LISTER, { resource: search.url });
    const direct = new Client({ name: 'direct', version: '1' });
    await direct.connect(
      new StreamableHTTPClientTransport(new URL(search.url), {
        requestInit: { headers: { Authorization: `Bearer ${own}` } },
      }),
    );
    const result = await direct.callTool({ name: 'headers', arguments: {} });
    await direct.close();
    const requests = JSON.parse(
      Buffer.from(String(structured(result).encoded), 'base64').toString(),
    ) as Array<{
      headers: Record<string, string>;
    }>;
    const all = JSON.stringify(requests);
    for (const t of TOKENS) expect(all).not.toContain(t);
    const gateways = requests
      .flatMap((r) => (r.headers.authorization === undefined ? [] : [r.headers.authorization.slice(7)]))
      .filter((bearer) => bearer !== own);
    // Every request of the gateway's listing carried the discovery client's token for this upstream.
    expect(gateways.length).toBeGreaterThan(0);
    expect(gateways.length).toBe(
      requests.length - requests.filter((r) => r.headers.authorization === `Bearer ${own}`).length,
    );
    for (const bearer of new Set(gateways)) {
      expect(await server.verify(bearer, search.url)).toMatchObject({ client_id: LISTER.id });
    }
  });
});
