import { randomBytes } from 'node:crypto';
import {
  type AuthorizationClient,
  type AuthorizationServer,
  freePort,
  type HttpTestUpstream,
  startAuthorizationServer,
  startHttpUpstream,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// docs/credentials.md, token_exchange: an OAuth principal's access token goes only to the
// configured token endpoint (RFC 8693) and the upstream gets a token of its own audience for that person;
// a static-token principal is refused or gets the exchange client's own token, as configured.

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const STATIC = `ops-${randomBytes(12).toString('hex')}`;
// The agent a person signs in with (its tokens are for the gateway), and the gateway's exchange client.
const AGENT: AuthorizationClient = {
  id: 'agent',
  secret: 'agent-secret-0123456789',
  redirectUris: ['http://127.0.0.1/agent-callback'],
};
const GATEWAY: AuthorizationClient = { id: 'skillgate-exchange', secret: 'exchange-secret-0123456789' };

let server: AuthorizationServer;
let denying: HttpTestUpstream;
let fallback: HttpTestUpstream;
let gw: TestGateway;
let mcpUrl: string;

beforeAll(async () => {
  const port = await freePort();
  mcpUrl = `http://127.0.0.1:${port}/mcp`;
  server = await startAuthorizationServer({ clients: [AGENT, GATEWAY], scopes: ['mcp'] });
  [denying, fallback] = await Promise.all([
    startHttpUpstream(['--require-audience', server.issuer]),
    startHttpUpstream(['--require-audience', server.issuer]),
  ]);
  const exchange = (staticPrincipals: 'deny' | 'client_credentials') => ({
    token_endpoint: server.tokenEndpoint,
    client_id_env: 'X_ID',
    client_secret_env: 'X_SECRET',
    static_principals: staticPrincipals,
  });
  gw = await startTestGateway(
    {
      server: { public_url: `http://127.0.0.1:${port}` },
      auth: {
        tokens: [{ name: 'ops', token_env: 'T_OPS' }],
        oauth: { issuer: server.issuer, grants: [{ scope: 'mcp', skills: ['*'] }] },
      },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      upstreams: [
        { id: 'search', url: denying.url, auth: { token_exchange: exchange('deny') } },
        { id: 'reports', url: fallback.url, auth: { token_exchange: exchange('client_credentials') } },
      ],
    },
    { ...process.env, T_OPS: STATIC, X_ID: GATEWAY.id, X_SECRET: GATEWAY.secret },
    undefined,
    { port },
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([denying?.stop(), fallback?.stop(), server?.close()]);
});

const structured = (result: unknown): Record<string, unknown> =>
  ((result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {}) as Record<
    string,
    unknown
  >;

/** An access token a person (`subject`) got for the gateway through the agent. */
const personToken = async (subject: string): Promise<string> =>
  (
    await server.personToken(AGENT, {
      subject,
      resource: mcpUrl,
      scope: 'openid mcp',
      redirectUri: AGENT.redirectUris?.[0] ?? '',
    })
  ).access_token;

describe('an upstream with auth.token_exchange', () => {
  it("calls as the person with a token exchanged for the upstream's audience, once for several calls", async () => {
    const token = await personToken('carol');
    const before = server.tokenRequests(EXCHANGE);
    const carol = await connectClient(new URL(mcpUrl), { token });
    for (let i = 0; i < 3; i++) {
      const called = await carol.client.callTool({ name: 'skill_search_call_whoami', arguments: {} });
      expect(called.isError).not.toBe(true);
      expect(structured(called)).toEqual({ sub: 'carol', aud: denying.url });
    }
    expect(server.tokenRequests(EXCHANGE) - before).toBe(1);

    // What the upstream received: the exchanged token, never the caller's own.
    const headers = await carol.client.callTool({ name: 'skill_search_call_headers', arguments: {} });
    await carol.close();
    const requests = JSON.parse(
      Buffer.from(String(structured(headers).encoded), 'base64').toString(),
    ) as Array<{ headers: Record<string, string> }>;
    expect(JSON.stringify(requests)).not.toContain(token);
    const bearers = requests.flatMap((r) =>
      r.headers.authorization === undefined ? [] : [r.headers.authorization.replace(/^Bearer /, '')],
    );
    expect(bearers.length).toBeGreaterThan(0);
    for (const bearer of new Set(bearers)) {
      const claims = await server.verify(bearer, denying.url);
      expect(claims).toMatchObject({ sub: 'carol', aud: denying.url });
    }
  });

  it('exchanges per person: another person gets their own token', async () => {
    const dave = await connectClient(new URL(mcpUrl), { token: await personToken('dave') });
    const called = await dave.client.callTool({ name: 'skill_search_call_whoami', arguments: {} });
    await dave.close();
    expect(structured(called)).toEqual({ sub: 'dave', aud: denying.url });
  });

  it('refuses a static-token principal with static_principals: deny, and the tool stays listed', async () => {
    const ops = await connectClient(new URL(mcpUrl), { token: STATIC });
    const listed = await ops.client.listTools();
    expect(listed.tools.map((t) => t.name)).toContain('skill_search_call_whoami');
    const before = server.tokenRequests();
    const refused = await ops.client.callTool({ name: 'skill_search_call_whoami', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(structured(refused)).toMatchObject({ reason: 'CREDENTIAL_UNAVAILABLE' });
    expect(JSON.stringify(refused.content)).toMatch(/static|OAuth/i);
    // Nothing was asked of the token endpoint for it.
    expect(server.tokenRequests()).toBe(before);
    await ops.close();
  });

  it("gives a static-token principal the exchange client's own token with static_principals: client_credentials", async () => {
    const ops = await connectClient(new URL(mcpUrl), { token: STATIC });
    const before = server.tokenRequests('client_credentials');
    const called = await ops.client.callTool({ name: 'skill_reports_call_whoami', arguments: {} });
    expect(called.isError).not.toBe(true);
    expect(structured(called).aud).toBe(fallback.url);
    expect(server.tokenRequests('client_credentials') - before).toBe(1);
    expect(server.tokenRequests(EXCHANGE)).toBe(2);
    // The token the upstream got is the exchange client's own (its sub, the client id, is a secret of the
    // gateway's environment: redacted in tool results, so it is read from the token the upstream recorded).
    const headers = await ops.client.callTool({ name: 'skill_reports_call_headers', arguments: {} });
    await ops.close();
    const requests = JSON.parse(
      Buffer.from(String(structured(headers).encoded), 'base64').toString(),
    ) as Array<{ headers: Record<string, string> }>;
    expect(JSON.stringify(requests)).not.toContain(STATIC);
    const [bearer] = requests.flatMap((r) =>
      r.headers.authorization === undefined ? [] : [r.headers.authorization.replace(/^Bearer /, '')],
    );
    const claims = await server.verify(bearer ?? '', fallback.url);
    expect(claims.client_id).toBe(GATEWAY.id);
  });
});
