import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type AuthorizationServer,
  freePort,
  type HttpTestUpstream,
  startAuthorizationServer,
  startHttpUpstream,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// docs/credentials.md: a provider connection (authorization code + PKCE at a real oidc-provider),
// an upstream that accepts only tokens whose audience is itself, and the three ways a caller is asked to
// connect. Each person's calls carry that person's token; the gateway token never leaves the gateway.

const ALICE = `alice-${randomBytes(12).toString('hex')}`;
const BOB = `bob-${randomBytes(12).toString('hex')}`;
const TOOL = 'skill_acme_call_whoami';

let server: AuthorizationServer;
let upstream: HttpTestUpstream;
let gw: TestGateway;
let storeFile: string;

beforeAll(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  server = await startAuthorizationServer({
    clients: [
      { id: 'skillgate', secret: 'skillgate-client-secret', redirectUris: [`${publicUrl}/connect/callback`] },
    ],
    scopes: ['repo'],
  });
  upstream = await startHttpUpstream(['--require-audience', server.issuer]);
  storeFile = join(mkdtempSync(join(tmpdir(), 'sg-connect-')), 'credentials.json');
  gw = await startTestGateway(
    {
      server: { public_url: publicUrl },
      auth: {
        tokens: [
          { name: 'alice', token_env: 'T_ALICE' },
          { name: 'bob', token_env: 'T_BOB' },
        ],
      },
      skills: { disclosure: 'eager', modern_disclosure: 'eager' },
      credentials: {
        store: 'file',
        file: storeFile,
        keys: [{ id: 'k1', env: 'SG_KEY' }],
        providers: [
          {
            id: 'acme',
            oauth: {
              issuer: server.issuer,
              client_id_env: 'ACME_ID',
              client_secret_env: 'ACME_SECRET',
              scopes: ['repo'],
              resource: upstream.url,
            },
          },
        ],
      },
      upstreams: [{ id: 'acme', url: upstream.url, auth: { provider: 'acme' } }],
    },
    {
      ...process.env,
      T_ALICE: ALICE,
      T_BOB: BOB,
      SG_KEY: randomBytes(32).toString('base64'),
      ACME_ID: 'skillgate',
      ACME_SECRET: 'skillgate-client-secret',
    },
    undefined,
    { port },
  );
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([upstream?.stop(), server?.close()]);
});

const structured = (result: unknown): Record<string, unknown> =>
  ((result as { structuredContent?: Record<string, unknown> }).structuredContent ?? {}) as Record<
    string,
    unknown
  >;

describe('a provider connection, asked for and used', () => {
  it('asks a client without URL elicitation with a CONNECT_REQUIRED tool error, then calls as the person', async () => {
    const alice = await connectClient(gw.url, { token: ALICE });
    const asked = await alice.client.callTool({ name: TOOL, arguments: {} });
    expect(asked.isError).toBe(true);
    const need = structured(asked);
    expect(need).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
    const link = String(need.url);
    expect(link.startsWith(`${gw.base}/connect/`)).toBe(true);
    // The link identifies nobody: no token, no principal name.
    expect(link).not.toContain('alice');
    expect(link).not.toContain(ALICE);

    const browser = new ConnectBrowser(gw.base);
    const done = await browser.connectWithToken(link, ALICE, server, 'alice-at-acme');
    expect(done.status).toBe(200);
    expect(done.text).toContain('Connected');

    const called = await alice.client.callTool({ name: TOOL, arguments: {} });
    expect(called.isError).not.toBe(true);
    expect(structured(called)).toEqual({ sub: 'alice-at-acme', aud: upstream.url });
    await alice.close();
  });

  it('never sends the gateway token upstream, and keeps no token in plain text on disk', async () => {
    const seen = readFileSync(storeFile, 'utf8');
    expect(seen).not.toContain(ALICE);
    const bob = await connectClient(gw.url, { token: BOB });
    await bob.client.callTool({ name: TOOL, arguments: {} });
    await bob.close();
    const alice = await connectClient(gw.url, { token: ALICE });
    const headers = await alice.client.callTool({ name: 'skill_acme_call_headers', arguments: {} });
    await alice.close();
    const requests = JSON.parse(
      Buffer.from(String(structured(headers).encoded), 'base64').toString(),
    ) as Array<{
      headers: Record<string, string>;
    }>;
    const sent = JSON.stringify(requests);
    expect(sent).not.toContain(ALICE);
    expect(sent).not.toContain(BOB);
    // Every credential the upstream got is an access token of the provider, never the gateway's.
    const bearers = requests.flatMap((r) =>
      r.headers.authorization === undefined ? [] : [r.headers.authorization],
    );
    expect(bearers.length).toBeGreaterThan(0);
    for (const bearer of bearers) {
      const claims = await server.verify(bearer.replace(/^Bearer /, ''), upstream.url);
      expect(claims.sub).toBe('alice-at-acme');
    }
  });

  it("refuses a flow completed by another principal, a replayed callback and another browser's callback", async () => {
    const bob = await connectClient(gw.url, { token: BOB });
    const link = String(structured(await bob.client.callTool({ name: TOOL, arguments: {} })).url);
    await bob.close();
    const mallory = new ConnectBrowser(gw.base);
    // Alice's token typed into Bob's link: refused, nothing bound or stored.
    const wrong = await mallory.post(link, { token: ALICE });
    expect(wrong.status).toBe(403);
    expect(wrong.text).toContain('CONNECT_REFUSED');

    // Bob binds his browser; the provider's callback opened in another browser is refused.
    const bobs = new ConnectBrowser(gw.base);
    const bound = await bobs.post(link, { token: BOB });
    expect(bound.status).toBe(303);
    const toProvider = await bobs.get(link);
    const authorization = new URL(toProvider.location ?? '');
    authorization.searchParams.set('login_hint', 'bob-at-acme');
    const callback = await server.authorize(authorization.href);
    const elsewhere = await new ConnectBrowser(gw.base).get(callback);
    expect(elsewhere.status).toBe(403);
    // In Bob's own browser it completes, once.
    expect((await bobs.get(callback)).status).toBe(200);
    const replayed = await bobs.get(callback);
    expect(replayed.status).toBe(404);
    expect(replayed.text).toContain('CONNECT_LINK_EXPIRED');
  });

  it('answers a 2025-era client that declared URL elicitation with -32042 and the link', async () => {
    const client = new Client(
      { name: 'elicits-url', version: '1.0.0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(gw.url, {
        requestInit: { headers: { Authorization: `Bearer ${BOB}` } },
      }),
    );
    // Bob disconnects first (the API), so his next call needs the connection again.
    const removed = await fetch(`${gw.base}/connections/acme`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${BOB}` },
    });
    expect(removed.status).toBe(204);
    const failure = await client.callTool({ name: TOOL, arguments: {} }).then(
      () => undefined,
      (error: unknown) =>
        error as { code?: number; data?: { elicitations?: Array<Record<string, unknown>> } },
    );
    expect(failure?.code).toBe(-32042);
    const [elicitation] = failure?.data?.elicitations ?? [];
    expect(elicitation).toMatchObject({ mode: 'url' });
    expect(String(elicitation?.url).startsWith(`${gw.base}/connect/`)).toBe(true);
    expect(String(elicitation?.url)).toContain(String(elicitation?.elicitationId));
    await client.close();
  });

  it('answers a 2026-07-28 client that declared URL elicitation with input_required, and refuses a tampered requestState', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } },
    };
    const call = (extra: Record<string, unknown> = {}) =>
      fetch(gw.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${BOB}`,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': TOOL,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: TOOL, arguments: {}, ...extra, _meta: meta },
        }),
      }).then(
        async (r) => (await r.json()) as { result?: Record<string, unknown>; error?: { code: number } },
      );
    const first = await call();
    expect(first.result?.resultType).toBe('input_required');
    const inputRequests = first.result?.inputRequests as Record<
      string,
      { method: string; params: Record<string, unknown> }
    >;
    expect(inputRequests.connect?.method).toBe('elicitation/create');
    expect(inputRequests.connect?.params).toMatchObject({ mode: 'url' });
    const state = String(first.result?.requestState);

    const tampered = await call({
      requestState: `${state.slice(0, -4)}AAAA`,
      inputResponses: { connect: { action: 'accept' } },
    });
    expect(tampered.error?.code).toBe(-32602);

    // Bob connects, then the retry with the state proceeds.
    const browser = new ConnectBrowser(gw.base);
    const done = await browser.connectWithToken(
      String(inputRequests.connect?.params.url),
      BOB,
      server,
      'bob-at-acme',
    );
    expect(done.status).toBe(200);
    const retried = await call({ requestState: state, inputResponses: { connect: { action: 'accept' } } });
    expect(retried.result?.structuredContent).toEqual({ sub: 'bob-at-acme', aud: upstream.url });
  });

  it("lists the caller's own connections over the API, and a DELETE revokes at the provider", async () => {
    const listed = await fetch(`${gw.base}/connections`, { headers: { authorization: `Bearer ${ALICE}` } });
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { connections: Array<{ provider: string; state: string }> };
    expect(body.connections).toEqual([expect.objectContaining({ provider: 'acme', state: 'connected' })]);
    const revocations = server.revocations();
    const removed = await fetch(`${gw.base}/connections/acme`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ALICE}` },
    });
    expect(removed.status).toBe(204);
    expect(server.revocations()).toBeGreaterThan(revocations);
    const alice = await connectClient(gw.url, { token: ALICE });
    expect(structured(await alice.client.callTool({ name: TOOL, arguments: {} })).reason).toBe(
      'CONNECT_REQUIRED',
    );
    await alice.close();
  });
});
