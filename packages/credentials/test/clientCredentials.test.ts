import { type AuthorizationServer, startAuthorizationServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CredentialsEvent, createCredentials } from '../src/index.js';
import { gatewayClient, settingsWith, testEnv, UPSTREAM_URL } from './fixtures/setup.js';

let server: AuthorizationServer;
beforeAll(async () => {
  server = await startAuthorizationServer({ clients: [gatewayClient], scopes: ['reports.read'] });
});
afterAll(async () => {
  await server.close();
});

const clientCredentials = () => ({
  tokenEndpoint: server.tokenEndpoint,
  clientIdEnv: 'SG_CLIENT_ID',
  clientSecretEnv: 'SG_CLIENT_SECRET',
  tokenEndpointAuthMethod: 'client_secret_basic' as const,
  scopes: ['reports.read'],
  resource: UPSTREAM_URL,
});

describe('client credentials (the gateway as itself)', () => {
  it('asks once for 20 concurrent callers, caches, and asks once more after the upstream said 401', async () => {
    const events: CredentialsEvent[] = [];
    const credentials = createCredentials({
      settings: settingsWith({
        upstreams: [{ upstream: 'reports', kind: 'client_credentials', client: clientCredentials() }],
      }),
      env: testEnv(),
      onEvent: (e) => events.push(e),
    });
    const before = server.tokenRequests('client_credentials');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => credentials.headersFor('reports', `token:p${i}`)),
    );
    expect(server.tokenRequests('client_credentials') - before).toBe(1);
    const headers = new Set(answers.map((a) => (a.kind === 'headers' ? a.headers.Authorization : a.kind)));
    expect(headers.size).toBe(1);
    const [authorization] = [...headers];
    expect(authorization).toMatch(/^Bearer /);
    // The token's audience is the upstream (RFC 8707 resource).
    expect(await server.verify(String(authorization).slice(7), UPSTREAM_URL)).toMatchObject({
      aud: UPSTREAM_URL,
    });

    await credentials.headersFor('reports', 'token:p0');
    expect(server.tokenRequests('client_credentials') - before).toBe(1);
    await credentials.onUpstream401(
      'reports',
      'token:p0',
      answers[0]?.kind === 'headers' ? answers[0].headers : undefined,
    );
    const again = await Promise.all(
      Array.from({ length: 5 }, () => credentials.headersFor('reports', 'token:p0')),
    );
    expect(server.tokenRequests('client_credentials') - before).toBe(2);
    expect(again[0]).not.toEqual(answers[0]);
    // A late 401 for the old token (another call in flight) does not drop the new one.
    await credentials.onUpstream401(
      'reports',
      'token:p1',
      answers[1]?.kind === 'headers' ? answers[1].headers : undefined,
    );
    await credentials.headersFor('reports', 'token:p1');
    expect(server.tokenRequests('client_credentials') - before).toBe(2);
    expect(events.filter((e) => e.kind === 'client_credentials')).toEqual([
      { kind: 'client_credentials', provider: 'reports', outcome: 'ok' },
      { kind: 'client_credentials', provider: 'reports', outcome: 'ok' },
    ]);
  });

  it('says EXCHANGE_FAILED for a refused client and PROVIDER_UNAVAILABLE for an endpoint that is down', async () => {
    const env = { ...testEnv(), SG_CLIENT_SECRET: 'wrong' };
    const refused = createCredentials({
      settings: settingsWith({
        upstreams: [{ upstream: 'reports', kind: 'client_credentials', client: clientCredentials() }],
      }),
      env,
    });
    const answer = await refused.headersFor('reports', 'token:a');
    expect(answer).toMatchObject({ kind: 'refused', code: 'EXCHANGE_FAILED' });
    expect(JSON.stringify(answer)).not.toContain('wrong');

    const down = createCredentials({
      settings: settingsWith({
        upstreams: [
          {
            upstream: 'reports',
            kind: 'client_credentials',
            client: { ...clientCredentials(), tokenEndpoint: 'http://127.0.0.1:9/token' },
          },
        ],
      }),
      env: testEnv(),
    });
    expect(await down.headersFor('reports', 'token:a')).toMatchObject({
      kind: 'refused',
      code: 'PROVIDER_UNAVAILABLE',
    });
  });

  it('refuses a token endpoint that is not https off loopback, sending nothing', async () => {
    const credentials = createCredentials({
      settings: settingsWith({
        upstreams: [
          {
            upstream: 'reports',
            kind: 'client_credentials',
            client: { ...clientCredentials(), tokenEndpoint: 'http://idp.example.com/token' },
          },
        ],
      }),
      env: testEnv(),
    });
    expect(await credentials.headersFor('reports', 'token:a')).toMatchObject({
      kind: 'refused',
      code: 'INSECURE_ENDPOINT',
    });
  });
});
