import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base64url, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthVerifier, type OAuthVerifierOptions } from '../../../src/auth/oauthVerifier.js';
import { GatewayError } from '../../../src/errors/gatewayError.js';
import {
  makeKey,
  type ProviderClient,
  startTestProvider,
  type TestProvider,
} from '../../helpers/oidcProvider.js';

const AUDIENCE = 'https://mcp.example.test/mcp';
const SECRET = 'verifier-test-secret-0123456789abcdef';
const AGENT: ProviderClient = { id: 'agent', secret: SECRET, scopes: ['mcp', 'skills:text', 'skills:logs'] };
const OPS: ProviderClient = {
  id: 'ops-bot',
  secret: SECRET,
  scopes: ['mcp'],
  claims: { groups: ['ops', 'dev'] },
};
const OPAQUE: ProviderClient = {
  id: 'opaque-agent',
  secret: SECRET,
  scopes: ['mcp', 'skills:text'],
  opaque: true,
};

let idp: TestProvider;
beforeAll(async () => {
  idp = await startTestProvider([AGENT, OPS, OPAQUE]);
});
afterAll(async () => {
  await idp.close();
});

const verifierFor = (overrides: Partial<OAuthVerifierOptions> = {}) =>
  createOAuthVerifier({
    issuer: idp.issuer,
    audience: AUDIENCE,
    jwksUri: undefined,
    principalClaim: 'sub',
    grants: [
      { scope: 'skills:text', skills: ['text-*'] },
      { scope: 'skills:logs', skills: ['log-*', 'text-*'] },
      { claim: { name: 'groups', value: 'ops' }, skills: ['*'] },
    ],
    ...overrides,
  });

// The reason a verifier gave for refusing a token (GatewayError UNAUTHORIZED, short fixed text).
const refusal = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('UNAUTHORIZED');
    return (error as GatewayError).message;
  }
  throw new Error('the token was accepted');
};

const now = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: idp.issuer,
  aud: AUDIENCE,
  sub: 'forged',
  scope: 'mcp skills:text',
  iat: now(),
  exp: now() + 300,
  ...extra,
});

describe('OAuth access tokens from a real provider', () => {
  it('accepts a client-credentials JWT for the audience (OIDC discovery) and grants by scope and claim', async () => {
    const verifier = verifierFor();
    const text = await verifier.verify(
      await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp skills:text' }),
    );
    expect(text.principal.name).toBe('agent');
    expect(text.principal.skills).toEqual(['text-*']);
    expect(text.scopes).toEqual(['mcp', 'skills:text']);
    expect(text.principal.id).toMatch(/^oauth:[0-9a-f]{8}:[0-9a-f]{12}:agent$/);
    const both = await verifier.verify(
      await idp.token(AGENT, { resource: AUDIENCE, scope: 'skills:text skills:logs' }),
    );
    expect(both.principal.skills).toEqual(['log-*', 'text-*']);
    // Another grant set is another principal: nothing cached for one is served to the other.
    expect(both.principal.id).not.toBe(text.principal.id);
    const ops = await verifier.verify(await idp.token(OPS, { resource: AUDIENCE, scope: 'mcp' }));
    expect(ops.principal.skills).toEqual(['*']);
    const none = await verifier.verify(await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp' }));
    expect(none.principal.skills).toEqual([]);
  });

  it('names the principal by principal_claim', async () => {
    const verifier = verifierFor({ principalClaim: 'client_id' });
    const token = await idp.token(OPS, { resource: AUDIENCE, scope: 'mcp' });
    expect((await verifier.verify(token)).principal.name).toBe('ops-bot');
    const missing = verifierFor({ principalClaim: 'email' });
    expect(await refusal(missing.verify(token))).toBe('token has no email claim');
  });

  it('refuses a token for another audience or from another issuer', async () => {
    const verifier = verifierFor();
    const other = await idp.token(AGENT, { resource: 'https://other.example.test/mcp', scope: 'mcp' });
    expect(decodeJwt(other).aud).toBe('https://other.example.test/mcp');
    expect(await refusal(verifier.verify(other))).toBe('token not issued for this resource');
    expect(await refusal(verifier.verify(await idp.sign(claims({ iss: 'https://evil.example.test' }))))).toBe(
      'token from another issuer',
    );
  });

  it('refuses an expired token and one not yet valid, allowing 60 s of clock skew', async () => {
    const verifier = verifierFor();
    expect(await refusal(verifier.verify(await idp.sign(claims({ exp: now() - 120 }))))).toBe(
      'token expired',
    );
    expect(await refusal(verifier.verify(await idp.sign(claims({ nbf: now() + 120 }))))).toBe(
      'token not yet valid',
    );
    expect((await verifier.verify(await idp.sign(claims({ exp: now() - 30 })))).principal.name).toBe(
      'forged',
    );
    expect(await refusal(verifier.verify(await idp.sign(claims({ exp: undefined }))))).toMatch(/exp/);
  });

  it('refuses alg none, HS256 keyed with the public key, an unknown key and a bad signature', async () => {
    const verifier = verifierFor();
    const encode = (value: object) => base64url.encode(JSON.stringify(value));
    const none = `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims())}.`;
    expect(await refusal(verifier.verify(none))).toBe('token algorithm not allowed');

    // The classic confusion attack: HMAC with the RSA public key (as JWK JSON and as its modulus) as secret.
    const key = idp.keys[0];
    if (key === undefined) throw new Error('no key');
    const { createHmac } = await import('node:crypto');
    for (const secret of [JSON.stringify(key.publicJwk), String(key.publicJwk.n)]) {
      const input = `${encode({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${encode(claims())}`;
      const mac = createHmac('sha256', secret).update(input).digest('base64url');
      expect(await refusal(verifier.verify(`${input}.${mac}`))).toBe('token algorithm not allowed');
    }

    const stranger = await makeKey('stranger');
    expect(await refusal(verifier.verify(await idp.sign(claims(), { key: stranger })))).toBe(
      'token signed by an unknown key',
    );
    // A key the provider does not publish, but under the provider's kid: the signature does not match.
    const impostor = { ...stranger, kid: key.kid };
    expect(await refusal(verifier.verify(await idp.sign(claims(), { key: impostor })))).toBe(
      'token signature invalid',
    );
    expect(await refusal(verifier.verify('not.a.jwt'))).toBe('malformed token');
  });

  it('refetches the key set on an unknown kid at most once per interval', async () => {
    let clock = Date.now();
    const verifier = verifierFor({ now: () => clock });
    await verifier.verify(await idp.sign(claims()));
    const before = idp.jwksFetches();
    const stranger = await makeKey('stranger-2');
    for (let i = 0; i < 5; i++)
      await refusal(verifier.verify(await idp.sign(claims({ jti: `u${i}` }), { key: stranger })));
    // The first unknown kid came within 30 s of the first fetch: no refetch at all yet.
    expect(idp.jwksFetches()).toBe(before);
    clock += 30_001;
    for (let i = 0; i < 5; i++)
      await refusal(verifier.verify(await idp.sign(claims({ jti: `v${i}` }), { key: stranger })));
    expect(idp.jwksFetches()).toBe(before + 1);
  });

  it('picks up a rotated key without a restart, and keeps cached keys while the JWKS is down', async () => {
    let clock = Date.now();
    const verifier = verifierFor({ now: () => clock });
    const oldToken = await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp skills:text' });
    await verifier.verify(oldToken);
    const next = await idp.rotate();
    const newToken = await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp skills:logs' });
    expect(await import('jose').then((j) => j.decodeProtectedHeader(newToken).kid)).toBe(next.kid);
    clock += 30_001;
    expect((await verifier.verify(newToken)).principal.skills).toEqual(['log-*', 'text-*']);

    // The provider goes away: tokens signed by keys already held still verify (not from the token cache).
    await idp.stop();
    try {
      clock += 11 * 60_000; // past the key set's max age: a background refresh fails and is ignored
      const fresh = await idp.sign(claims({ sub: 'during-outage' }), { key: next });
      expect((await verifier.verify(fresh)).principal.name).toBe('during-outage');
      expect(
        (await verifier.verify(await idp.sign(claims({ sub: 'old-key' }), { key: idp.keys[1] }))).principal
          .name,
      ).toBe('old-key');
      // An unknown kid during the outage: refused (401 upstream), not an exception of another kind.
      expect(await refusal(verifier.verify(await idp.sign(claims(), { key: await makeKey('x') })))).toBe(
        'token signed by an unknown key',
      );
    } finally {
      await idp.start();
    }
  });

  it('answers a refusal, not an error, when the provider cannot be reached at all', async () => {
    const unreachable = createOAuthVerifier({
      issuer: 'http://127.0.0.1:9/',
      audience: AUDIENCE,
      jwksUri: undefined,
      principalClaim: 'sub',
      grants: [],
    });
    expect(await refusal(unreachable.verify(await idp.sign(claims())))).toBe(
      'token signed by an unknown key',
    );
  });

  it('refuses metadata that names another issuer', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ issuer: 'https://someone-else.example.test', jwks_uri: `${idp.issuer}/jwks` }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const failures: string[] = [];
      const verifier = createOAuthVerifier({
        issuer,
        audience: AUDIENCE,
        jwksUri: undefined,
        principalClaim: 'sub',
        grants: [],
        onFetchFailed: (error) => failures.push(String(error)),
      });
      await refusal(verifier.verify(await idp.sign(claims({ iss: issuer }))));
      expect(failures.join('\n')).toContain('names issuer "https://someone-else.example.test"');
    } finally {
      server.close();
    }
  });

  it('introspects an opaque token (RFC 7662) when configured, and refuses it otherwise', async () => {
    const opaque = await idp.token(OPAQUE, { resource: AUDIENCE, scope: 'mcp skills:text' });
    expect(opaque.split('.')).toHaveLength(1);
    expect(await refusal(verifierFor().verify(opaque))).toBe('malformed token');
    // Client-credentials introspection answers carry no sub: the client is the principal.
    const introspecting = verifierFor({
      principalClaim: 'client_id',
      introspection: {
        endpoint: `${idp.issuer}/token/introspection`,
        clientId: AGENT.id,
        clientSecret: SECRET,
      },
    });
    const verified = await introspecting.verify(opaque);
    expect(verified.principal.skills).toEqual(['text-*']);
    expect(verified.clientId).toBe('opaque-agent');
    expect(await refusal(introspecting.verify('not-a-token-the-provider-knows'))).toBe('token not active');
    const elsewhere = await idp.token(OPAQUE, { resource: 'https://other.example.test/mcp', scope: 'mcp' });
    expect(await refusal(introspecting.verify(elsewhere))).toBe('token not issued for this resource');
  });
});
