import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Client,
  StreamableHTTPClientTransport,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/client';
import {
  type AuthorizationServer,
  freePort,
  type HttpTestUpstream,
  startAuthorizationServer,
  startHttpUpstream,
} from '@skillgate/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACME, acmeConnection, LOGIN } from '../helpers/acmeConnection.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// docs/credentials.md, "The connect page", in the browser it is for: Debian's chromium, headless,
// driven by a real MCP client's URL elicitation. The person signs in at the gateway's issuer on that server's
// own pages (oidc-provider's sign-in and consent forms, typed into), is sent on to the provider, signs in and
// consents there, and lands on the gateway's "connected" page; the client's call then reaches the upstream
// with that person's own token. The plain-HTTP twin of these pages is test/helpers/connectBrowser.ts.

const TOOL = 'skill_acme_call_whoami';
const BOB = `bob-${randomBytes(12).toString('hex')}`;
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
// Where people sign in (auth.oauth.issuer), and the provider they connect (acme): two servers, two accounts.
let identity: AuthorizationServer;
let provider: AuthorizationServer;
let upstream: HttpTestUpstream;
let gw: TestGateway;
let mcpUrl: string;
let work: string;

beforeAll(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  mcpUrl = `${publicUrl}/mcp`;
  const callback = [`${publicUrl}/connect/callback`];
  work = await mkdtemp(join(tmpdir(), 'sg-chromium-'));
  [identity, provider] = await Promise.all([
    startAuthorizationServer({
      clients: [{ ...LOGIN, redirectUris: callback }],
      scopes: ['mcp'],
      interactive: true,
    }),
    startAuthorizationServer({
      clients: [{ ...ACME, redirectUris: callback }],
      scopes: ['repo'],
      interactive: true,
    }),
  ]);
  upstream = await startHttpUpstream(['--require-audience', provider.issuer]);
  const acme = acmeConnection({ provider, upstreamUrl: upstream.url, file: join(work, 'credentials.json') });
  gw = await startTestGateway(
    {
      server: { public_url: publicUrl },
      auth: {
        tokens: [{ name: 'bob', token_env: 'T_BOB' }],
        oauth: { issuer: identity.issuer, grants: [{ scope: 'mcp', skills: ['*'] }] },
      },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      ...acme.config,
    },
    {
      ...process.env,
      T_BOB: BOB,
      ...acme.env,
    },
    undefined,
    { port },
  );
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await gw?.close();
  await Promise.all([upstream?.stop(), identity?.close(), provider?.close()]);
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** A fresh browser profile that reaches only loopback (the servers' pages link a web font). */
async function freshPage(): Promise<Page> {
  const context = await browser.newContext();
  await context.route(
    (url) => url.hostname !== '127.0.0.1',
    (route) => route.abort(),
  );
  return context.newPage();
}

/** On an oidc-provider's own pages: types `account` into its sign-in form, then consents. */
async function signInAndConsent(page: Page, server: AuthorizationServer, account: string): Promise<void> {
  const atServer = (url: URL) => url.origin === server.issuer && url.pathname.startsWith('/interaction/');
  await page.waitForURL(atServer);
  await page.locator('input[name="login"]').fill(account);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  // The consent page is a new interaction of the same server.
  await page.locator('input[name="prompt"][value="consent"]').waitFor({ state: 'attached' });
  expect(new URL(page.url()).origin).toBe(server.issuer);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The gateway's last page of a flow: its heading. */
async function connectedHeading(page: Page): Promise<string> {
  await page.waitForURL((url) => url.href.startsWith(`${gw.base}/connect/callback`));
  return (await page.locator('#connected').textContent()) ?? '';
}

const structured = (result: unknown): Record<string, unknown> =>
  ((result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {}) as Record<
    string,
    unknown
  >;

/** Every Authorization the upstream received, from its own record (the `headers` tool). */
async function upstreamBearers(client: Client): Promise<string[]> {
  const headers = await client.callTool({ name: 'skill_acme_call_headers', arguments: {} });
  const requests = JSON.parse(
    Buffer.from(String(structured(headers).encoded), 'base64').toString(),
  ) as Array<{
    headers: Record<string, string>;
  }>;
  return requests.flatMap((r) => (r.headers.authorization === undefined ? [] : [r.headers.authorization]));
}

describe('the connect page in chromium', () => {
  it('connects an OAuth principal from a 2026-07-28 URL elicitation: sign-in, consent, provider, connected, the retry calls as the person', async () => {
    const now = Math.floor(Date.now() / 1000);
    // The token the agent got for alice at the gateway's issuer (the gateway's audience).
    const agentToken = await identity.sign({
      iss: identity.issuer,
      aud: mcpUrl,
      sub: 'alice',
      scope: 'mcp',
      iat: now,
      exp: now + 600,
    });
    const page = await freshPage();
    const asked: Array<{ mode?: unknown; url?: unknown }> = [];
    let heading = '';
    const client = new Client(
      { name: 'chromium-connect', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    // The host's part of a URL elicitation: open the link in the person's browser, and say when they are done.
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params as { mode?: unknown; url?: unknown };
      asked.push(params);
      await page.goto(String(params.url));
      expect(await page.locator('h1').textContent()).toBe('Connect acme');
      // An OAuth principal is offered the sign-in only: no token form.
      expect(await page.locator('input[name="token"]').count()).toBe(0);
      await page.locator('#sign-in').click();
      await signInAndConsent(page, identity, 'alice');
      await signInAndConsent(page, provider, 'alice-at-acme');
      heading = await connectedHeading(page);
      return { action: 'accept' };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${agentToken}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: TOOL, arguments: {} });
      expect(asked).toHaveLength(1);
      expect(asked[0]?.mode).toBe('url');
      expect(String(asked[0]?.url).startsWith(`${gw.base}/connect/`)).toBe(true);
      expect(heading).toBe('Connected: acme');
      expect(result.isError).not.toBe(true);
      expect(structured(result)).toEqual({ sub: 'alice-at-acme', aud: upstream.url });

      // What reached the upstream: the provider's tokens for alice-at-acme, never the agent's token.
      const bearers = await upstreamBearers(client);
      expect(bearers.length).toBeGreaterThan(0);
      expect(bearers.join('\n')).not.toContain(agentToken);
      for (const bearer of bearers) {
        const claims = await provider.verify(bearer.replace(/^Bearer /, ''), upstream.url);
        expect(claims.sub).toBe('alice-at-acme');
      }
    } finally {
      await client.close();
      await page.context().close();
    }
  });

  it('connects a static-token principal from a 2025-era -32042: the token typed into the form, the provider, connected', async () => {
    const page = await freshPage();
    const client = new Client(
      { name: 'chromium-connect-2025', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), {
        requestInit: { headers: { Authorization: `Bearer ${BOB}` } },
      }),
    );
    try {
      const failure = await client.callTool({ name: TOOL, arguments: {} }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(UrlElicitationRequiredError);
      const [elicitation] = (failure as UrlElicitationRequiredError).elicitations;
      expect(elicitation?.mode).toBe('url');
      const link = String(elicitation?.url);
      expect(link).not.toContain(BOB);

      await page.goto(link);
      // A static-token principal is offered the token form only.
      expect(await page.locator('#sign-in').count()).toBe(0);
      await page.locator('input[name="token"]').fill(BOB);
      await page.getByRole('button', { name: 'Continue' }).click();
      await signInAndConsent(page, provider, 'bob-at-acme');
      expect(await connectedHeading(page)).toBe('Connected: acme');
      // The token went only into the form's POST body: the browser's history holds no URL with it.
      expect(page.url()).not.toContain(BOB);

      const retried = await client.callTool({ name: TOOL, arguments: {} });
      expect(structured(retried)).toEqual({ sub: 'bob-at-acme', aud: upstream.url });
    } finally {
      await client.close();
      await page.context().close();
    }
  });

  it("shows a static-token principal its connections on /connections and disconnects one with the page's button", async () => {
    const page = await freshPage();
    const revocations = provider.revocations();
    try {
      await page.goto(`${gw.base}/connections`);
      await page.locator('input[name="token"]').fill(BOB);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('table').waitFor();
      expect(new URL(page.url()).pathname).toBe('/connections');
      const row = page.locator('tbody tr');
      expect(await row.count()).toBe(1);
      expect(await row.locator('td').nth(0).textContent()).toBe('acme');
      expect(await row.locator('td').nth(1).textContent()).toBe('connected');

      await row.getByRole('button', { name: 'Disconnect' }).click();
      await page.locator('#none').waitFor();
      expect(await page.locator('#none').textContent()).toBe('No connected accounts.');
      // Revoked at the provider, and bob's next call asks him to connect again.
      expect(provider.revocations()).toBeGreaterThan(revocations);
      const client = new Client({ name: 'chromium-after', version: '1.0.0' }, {});
      await client.connect(
        new StreamableHTTPClientTransport(new URL(mcpUrl), {
          requestInit: { headers: { Authorization: `Bearer ${BOB}` } },
        }),
      );
      const asked = await client.callTool({ name: TOOL, arguments: {} });
      await client.close();
      expect(structured(asked)).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
    } finally {
      await page.context().close();
    }
  });
});
