import { type AuthorizationServer, startAuthorizationServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CredentialsEvent, createCredentials, type TokenExchangeSettings } from '../src/index.js';
import { CALLBACK, gatewayClient, settingsWith, testEnv, UPSTREAM_URL } from './fixtures/setup.js';

let server: AuthorizationServer;
// The agent's own client at the same issuer: it signs people in and gets their access tokens.
const agentClient = { id: 'agent', secret: 'agent-secret-value', redirectUris: [CALLBACK] };
beforeAll(async () => {
  server = await startAuthorizationServer({
    clients: [gatewayClient, agentClient],
    scopes: ['search.read', 'mcp'],
  });
});
afterAll(async () => {
  await server.close();
});

const exchange = (overrides: Partial<TokenExchangeSettings> = {}): TokenExchangeSettings => ({
  tokenEndpoint: server.tokenEndpoint,
  clientIdEnv: 'SG_CLIENT_ID',
  clientSecretEnv: 'SG_CLIENT_SECRET',
  tokenEndpointAuthMethod: 'client_secret_basic',
  scopes: ['search.read'],
  audience: UPSTREAM_URL,
  resource: UPSTREAM_URL,
  staticPrincipals: 'deny',
  ...overrides,
});

const personToken = async (subject: string): Promise<string> =>
  (
    await server.personToken(agentClient, {
      subject,
      redirectUri: CALLBACK,
      resource: 'https://gateway.example/mcp',
      scope: 'openid mcp',
    })
  ).access_token;

describe('token exchange (RFC 8693)', () => {
  it("exchanges the caller's token for one whose audience is the upstream, cached per principal", async () => {
    const events: CredentialsEvent[] = [];
    const credentials = createCredentials({
      settings: settingsWith({
        upstreams: [{ upstream: 'search', kind: 'token_exchange', exchange: exchange() }],
      }),
      env: testEnv(),
      onEvent: (e) => events.push(e),
    });
    const alice = await personToken('alice');
    const bob = await personToken('bob');
    const before = server.tokenRequests('urn:ietf:params:oauth:grant-type:token-exchange');
    const [a1, a2, b1] = await Promise.all([
      credentials.headersFor('search', 'oauth:x:alice', alice),
      credentials.headersFor('search', 'oauth:x:alice', alice),
      credentials.headersFor('search', 'oauth:x:bob', bob),
    ]);
    expect(server.tokenRequests('urn:ietf:params:oauth:grant-type:token-exchange') - before).toBe(2);
    expect(a1).toEqual(a2);
    const tokenOf = (a: typeof a1): string =>
      a.kind === 'headers' ? String(a.headers.Authorization).slice(7) : '';
    // The upstream checks the audience: the exchanged token is for it and names the person, not the gateway.
    expect(await server.verify(tokenOf(a1), UPSTREAM_URL)).toMatchObject({
      sub: 'alice',
      aud: UPSTREAM_URL,
      scope: 'search.read',
    });
    expect(await server.verify(tokenOf(b1), UPSTREAM_URL)).toMatchObject({ sub: 'bob' });
    // The caller's own token never reaches the upstream.
    expect(tokenOf(a1)).not.toBe(alice);
    // Cached: a later call asks nothing; a 401 from the upstream drops that principal's token only.
    await credentials.headersFor('search', 'oauth:x:alice', alice);
    expect(server.tokenRequests('urn:ietf:params:oauth:grant-type:token-exchange') - before).toBe(2);
    await credentials.onUpstream401('search', 'oauth:x:alice');
    await credentials.headersFor('search', 'oauth:x:bob', bob);
    await credentials.headersFor('search', 'oauth:x:alice', alice);
    expect(server.tokenRequests('urn:ietf:params:oauth:grant-type:token-exchange') - before).toBe(3);
    expect(events.filter((e) => e.kind === 'exchange').every((e) => e.outcome === 'ok')).toBe(true);
  });

  it("keeps an exchanged token no longer than the caller's own token lives", async () => {
    let clock = Date.now();
    const credentials = createCredentials({
      settings: settingsWith({
        upstreams: [{ upstream: 'search', kind: 'token_exchange', exchange: exchange() }],
      }),
      env: testEnv(),
      now: () => clock,
    });
    const exp = Math.floor(clock / 1000) + 100;
    const subject = await server.sign({
      iss: server.issuer,
      sub: 'carol',
      aud: 'https://gateway.example/mcp',
      exp,
    });
    const grant = 'urn:ietf:params:oauth:grant-type:token-exchange';
    const before = server.tokenRequests(grant);
    await credentials.headersFor('search', 'oauth:x:carol', subject);
    clock += 90_000;
    await credentials.headersFor('search', 'oauth:x:carol', subject);
    expect(server.tokenRequests(grant) - before).toBe(1);
    // Past the subject token's exp (though the exchanged token's own 600 s are not over): asked again.
    clock += 11_000;
    await credentials.headersFor('search', 'oauth:x:carol', subject);
    expect(server.tokenRequests(grant) - before).toBe(2);
  });

  it('says EXCHANGE_FAILED for a subject token the server does not know, without the token in the message', async () => {
    const credentials = createCredentials({
      settings: settingsWith({
        upstreams: [{ upstream: 'search', kind: 'token_exchange', exchange: exchange() }],
      }),
      env: testEnv(),
    });
    const answer = await credentials.headersFor('search', 'oauth:x:eve', 'forged-token-value');
    expect(answer).toMatchObject({ kind: 'refused', code: 'EXCHANGE_FAILED' });
    expect(JSON.stringify(answer)).not.toContain('forged-token-value');
  });

  it('denies static principals, or gives them the client-credentials token, as configured', async () => {
    const deny = createCredentials({
      settings: settingsWith({
        upstreams: [{ upstream: 'search', kind: 'token_exchange', exchange: exchange() }],
      }),
      env: testEnv(),
    });
    expect(await deny.headersFor('search', 'token:ci')).toMatchObject({
      kind: 'refused',
      code: 'STATIC_PRINCIPAL_DENIED',
    });

    const own = createCredentials({
      settings: settingsWith({
        upstreams: [
          {
            upstream: 'search',
            kind: 'token_exchange',
            exchange: exchange({ staticPrincipals: 'client_credentials' }),
          },
        ],
      }),
      env: testEnv(),
    });
    const answer = await own.headersFor('search', 'token:ci');
    expect(answer.kind).toBe('headers');
    const token = answer.kind === 'headers' ? String(answer.headers.Authorization).slice(7) : '';
    expect(await server.verify(token, UPSTREAM_URL)).toMatchObject({
      aud: UPSTREAM_URL,
      client_id: 'skillgate',
    });
  });
});
