import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthorizationServer,
  freePort,
  type HttpTestUpstream,
  startAuthorizationServer,
  startHttpUpstream,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, acmeConnection, LOGIN } from '../helpers/acmeConnection.js';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// docs/credentials.md: /connections in a browser binds by the connect page's binding: a static-token principal types
// its token, and an OAuth principal signs in at auth.oauth.issuer (credentials.connect.login). Before, the page
// offered OAuth principals nothing (only the token form), so they could see and undo their connections only
// through the API or the CLI. The sign-in is bound to the browser that started it: a callback someone else
// got for their own sign-in signs no other browser in as them (login CSRF), and starting a sign-in writes
// nothing to the store (an unauthenticated page must not grow it).

const TOOL = 'skill_acme_call_whoami';

let identity: AuthorizationServer;
let provider: AuthorizationServer;
let upstream: HttpTestUpstream;
let gw: TestGateway;
let publicUrl: string;
const credentialsFile = join(tmpdir(), `skillgate-signin-${randomBytes(6).toString('hex')}.json`);

const tokenFor = async (sub: string): Promise<string> => {
  const now = Math.floor(Date.now() / 1000);
  return identity.sign({
    iss: identity.issuer,
    aud: `${publicUrl}/mcp`,
    sub,
    scope: 'mcp',
    iat: now,
    exp: now + 600,
  });
};

const withHint = (url: string, hint: string): string => {
  const u = new URL(url);
  u.searchParams.set('login_hint', hint);
  return u.href;
};

/** Starts the /connections sign-in in `browser` and returns the issuer's callback URL for `subject`. */
async function signInCallback(browser: ConnectBrowser, subject: string): Promise<string> {
  const start = await browser.get('/connections/sign-in');
  expect(start.status).toBe(303);
  return identity.authorize(withHint(start.location ?? '', subject));
}

beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  const callback = [`${publicUrl}/connect/callback`];
  [identity, provider] = await Promise.all([
    startAuthorizationServer({ clients: [{ ...LOGIN, redirectUris: callback }], scopes: ['mcp'] }),
    startAuthorizationServer({ clients: [{ ...ACME, redirectUris: callback }], scopes: ['repo'] }),
  ]);
  upstream = await startHttpUpstream(['--require-audience', provider.issuer]);
  const acme = acmeConnection({ provider, upstreamUrl: upstream.url, file: credentialsFile });
  gw = await startTestGateway(
    {
      server: { public_url: publicUrl },
      auth: { oauth: { issuer: identity.issuer, grants: [{ scope: 'mcp', skills: ['*'] }] } },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      ...acme.config,
    },
    {
      ...process.env,
      ...acme.env,
    },
    undefined,
    { port },
  );
  // alice connects acme through a connect link, as an agent's person would.
  const client = await connectClient(gw.url, { token: await tokenFor('alice') });
  try {
    const need = (await client.client.callTool({ name: TOOL, arguments: {} })) as {
      structuredContent?: { url?: string };
    };
    const pages = await new ConnectBrowser(publicUrl).connectWithSignIn(
      String(need.structuredContent?.url),
      { server: identity, subject: 'alice' },
      { server: provider, subject: 'alice-at-acme' },
    );
    expect(pages.at(-1)?.text).toContain('Connected: acme');
  } finally {
    await client.close();
  }
}, 30_000);
afterAll(async () => {
  await gw?.close();
  await Promise.all([
    upstream?.stop(),
    identity?.close(),
    provider?.close(),
    rm(credentialsFile, { force: true }),
  ]);
});

describe('/connections in a browser, for an OAuth principal', () => {
  it('offers the sign-in, and after it lists and disconnects the person’s own connections', async () => {
    const browser = new ConnectBrowser(publicUrl);
    const first = await browser.get('/connections');
    expect(first.text).toContain('href="/connections/sign-in"');

    const back = await browser.get(await signInCallback(browser, 'alice'));
    expect([back.status, back.location]).toEqual([303, '/connections']);
    const listed = await browser.get('/connections');
    expect(listed.text).toContain('<td>acme</td><td>connected</td>');

    // Another person's sign-in shows theirs: bob has none.
    const bobs = new ConnectBrowser(publicUrl);
    await bobs.get(await signInCallback(bobs, 'bob'));
    expect((await bobs.get('/connections')).text).not.toContain('<td>acme</td>');

    const removed = await browser.post('/connections/acme/delete', {});
    expect(removed.status).toBe(303);
    expect((await browser.get('/connections')).text).not.toContain('<td>acme</td>');
    const api = await fetch(`${publicUrl}/connections`, {
      headers: { authorization: `Bearer ${await tokenFor('alice')}` },
    });
    expect(((await api.json()) as { connections: unknown[] }).connections).toEqual([]);
  });

  it('stores nothing for a sign-in started and left', async () => {
    const before = await readFile(credentialsFile, 'utf8').catch(() => '');
    for (let i = 0; i < 5; i++)
      expect((await new ConnectBrowser(publicUrl).get('/connections/sign-in')).status).toBe(303);
    expect(await readFile(credentialsFile, 'utf8').catch(() => '')).toBe(before);
  });

  it('signs no other browser in: a callback of someone else’s sign-in is refused there, and used once', async () => {
    const mallory = new ConnectBrowser(publicUrl);
    const callback = await signInCallback(mallory, 'mallory');
    // The victim's browser opens mallory's callback link: refused, and it is not signed in as mallory.
    const victim = new ConnectBrowser(publicUrl);
    const refused = await victim.get(callback);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('did not start this sign-in');
    expect((await victim.get('/connections')).text).toContain('href="/connections/sign-in"');
    // In the browser that started it, it works once; again, it is refused (the browser holds no sign-in now).
    expect((await mallory.get(callback)).status).toBe(303);
    expect((await mallory.get(callback)).status).toBe(403);
  });
});
