import { type AuthorizationServer, startAuthorizationServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentials } from '../src/index.js';
import { gatewayClient, oauthProvider, settingsWith, testEnv } from './fixtures/setup.js';

// One server plays both parts: auth.oauth.issuer (where people sign in) and the provider they connect to.
let server: AuthorizationServer;
beforeAll(async () => {
  server = await startAuthorizationServer({ clients: [gatewayClient], scopes: ['repo'] });
});
afterAll(async () => {
  await server.close();
});

const withHint = (url: string, hint: string): string => {
  const u = new URL(url);
  u.searchParams.set('login_hint', hint);
  return u.href;
};

describe('the connect page sign-in (credentials.connect.login)', () => {
  const make = () =>
    createCredentials({
      settings: settingsWith({
        providers: [oauthProvider(server.issuer)],
        upstreams: [{ upstream: 'gh', kind: 'provider', provider: 'idp' }],
        login: {
          issuer: server.issuer,
          clientIdEnv: 'SG_CLIENT_ID',
          clientSecretEnv: 'SG_CLIENT_SECRET',
          tokenEndpointAuthMethod: 'client_secret_basic',
        },
      }),
      env: testEnv(),
      // The gateway's rule: an OAuth principal's id from the issuer and subject.
      loginPrincipal: (claims) => (typeof claims.sub === 'string' ? `oauth:test:${claims.sub}` : undefined),
    });

  it('binds the browser to the OAuth principal, then connects it', async () => {
    const credentials = make();
    const link = await credentials.startFlow('oauth:test:alice', 'idp');
    const login = new URL(await credentials.loginUrl(link.id));
    expect(login.searchParams.get('scope')).toBe('openid');
    expect(login.searchParams.get('nonce')).not.toBeNull();
    const signedIn = await server.authorize(withHint(login.href, 'alice'));
    const step = await credentials.completeCallback(signedIn);
    expect(step).toMatchObject({ kind: 'login', flow: link.id });
    // The same sign-in callback never works twice.
    await expect(credentials.completeCallback(signedIn)).rejects.toMatchObject({ code: 'FLOW_INVALID' });
    if (step.kind !== 'login') throw new Error('expected the sign-in step');
    const back = await server.authorize(withHint(step.redirect, 'alice-at-github'));
    expect(await credentials.completeCallback(back)).toEqual({
      kind: 'connected',
      principal: 'oauth:test:alice',
      provider: 'idp',
    });
    expect(await credentials.headersFor('gh', 'oauth:test:alice')).toMatchObject({ kind: 'headers' });
  });

  it('refuses someone else signing in with the link, storing nothing, and lets its principal finish', async () => {
    const credentials = make();
    const link = await credentials.startFlow('oauth:test:alice', 'idp');
    const mallory = await server.authorize(withHint(await credentials.loginUrl(link.id), 'mallory'));
    await expect(credentials.completeCallback(mallory)).rejects.toMatchObject({ code: 'FLOW_FORBIDDEN' });
    expect(await credentials.connections()).toEqual([]);
    // Alice's own sign-in still works on the same link.
    const alice = await server.authorize(withHint(await credentials.loginUrl(link.id), 'alice'));
    expect(await credentials.completeCallback(alice)).toMatchObject({ kind: 'login', flow: link.id });
  });
});
