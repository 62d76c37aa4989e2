import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type IntrospectingGateway, startIntrospectingGateway } from '../helpers/introspectingGateway.js';
import type { ProviderClient, TestProvider } from '../helpers/oidcProvider.js';
import { modernToolsList } from '../helpers/rawHttp.js';

// A DPoP-bound access token (RFC 9449) names its key in `cnf.jkt`: it may be used only with a proof signed
// by that key. The gateway takes Bearer tokens only, so it used to accept such a token without any proof:
// whoever copied it (a log, a proxy) could use it as if it were a bearer token.
const AUDIENCE = 'https://bound.example.test/mcp';
const AGENT: ProviderClient = {
  id: 'bound-agent',
  secret: 'bound-agent-secret-0123456789',
  scopes: ['mcp'],
  opaque: true,
};

let relay: IntrospectingGateway;
let idp: TestProvider;
beforeAll(async () => {
  relay = await startIntrospectingGateway({ agents: [AGENT], audience: AUDIENCE });
  idp = relay.idp;
});
afterAll(async () => {
  await relay?.close();
});

const list = (token: string) => modernToolsList(relay.url, token);
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
      authorization: `Basic ${Buffer.from(`${AGENT.id}:${AGENT.secret}`).toString('base64')}`,
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
