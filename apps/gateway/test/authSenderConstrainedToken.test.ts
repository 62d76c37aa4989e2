import { randomUUID } from 'node:crypto';
import { parseConfig } from '@skillgate/config';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../src/index.js';
import { type ProviderClient, startTestProvider, type TestProvider } from './helpers/oidcProvider.js';
import { post } from './helpers/rawHttp.js';
import { EXAMPLES_ROOT, REPO_ROOT } from './helpers/testGateway.js';

// A DPoP-bound access token (RFC 9449) names its key in `cnf.jkt`: it may be used only with a proof signed
// by that key. The gateway takes Bearer tokens only, so it used to accept such a token without any proof:
// whoever copied it (a log, a proxy) could use it as if it were a bearer token.
const AUDIENCE = 'https://bound.example.test/mcp';
const SECRET = 'bound-test-client-secret-0123456789';
const AGENT: ProviderClient = { id: 'bound-agent', secret: SECRET, scopes: ['mcp'], opaque: true };
const GATEWAY_CLIENT: ProviderClient = { id: 'gateway', secret: SECRET, scopes: ['mcp'] };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let idp: TestProvider;
let gateway: Gateway;
let url: URL;
beforeAll(async () => {
  idp = await startTestProvider([AGENT, GATEWAY_CLIENT]);
  const config = parseConfig(
    {
      server: { public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT] },
      auth: {
        oauth: {
          issuer: idp.issuer,
          audience: AUDIENCE,
          required_scopes: ['mcp'],
          principal_claim: 'client_id',
          introspection: {
            endpoint: `${idp.issuer}/token/introspection`,
            client_id_env: 'BOUND_CLIENT_ID',
            client_secret_env: 'BOUND_CLIENT_SECRET',
          },
        },
      },
      rate_limit: { requests_per_second: 0 },
    },
    { baseDir: REPO_ROOT },
  );
  gateway = await createGateway(config, {
    env: { ...process.env, BOUND_CLIENT_ID: GATEWAY_CLIENT.id, BOUND_CLIENT_SECRET: SECRET },
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL('/mcp', base);
});
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
});

const list = (token: string) =>
  post(
    url,
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
    { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  );
const claims = (sub: string) => ({
  iss: idp.issuer,
  aud: AUDIENCE,
  sub,
  client_id: sub,
  scope: 'mcp',
  exp: Math.floor(Date.now() / 1000) + 300,
});

/** A DPoP-bound opaque access token from the provider (RFC 9449: the token request carries a DPoP proof). */
async function dpopBoundToken(): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const tokenUrl = `${idp.issuer}/token`;
  const proof = await new SignJWT({ htm: 'POST', htu: tokenUrl, jti: randomUUID() })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
    .setIssuedAt()
    .sign(privateKey);
  const response = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${AGENT.id}:${SECRET}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
      dpop: proof,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      resource: AUDIENCE,
      scope: 'mcp',
    }).toString(),
  });
  const body = (await response.json()) as { access_token?: string; token_type?: string };
  if (body.access_token === undefined || body.token_type !== 'DPoP') {
    throw new Error(`no DPoP-bound token: ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

describe('sender-constrained tokens presented as bearer tokens', () => {
  it('a stolen DPoP-bound opaque token from the provider sent as a Bearer token is refused', async () => {
    const answer = await list(await dpopBoundToken());
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('bound to a key');
    // An unbound token of the same client is served.
    expect((await list(await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp' }))).status).toBe(200);
  });

  it('a stolen DPoP-bound access token (cnf.jkt) sent as a Bearer token is refused', async () => {
    const bound = await idp.sign({
      ...claims('dpop-agent'),
      cnf: { jkt: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs' },
    });
    const answer = await list(bound);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(answer.headers.get('www-authenticate')).toContain('bound to a key');
  });

  it('a certificate-bound token (cnf x5t#S256) sent as a Bearer token is refused', async () => {
    const bound = await idp.sign({
      ...claims('mtls-agent'),
      cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' },
    });
    expect((await list(bound)).status).toBe(401);
  });

  it('the same token without cnf is served', async () => {
    expect((await list(await idp.sign(claims('bearer-agent')))).status).toBe(200);
  });
});
