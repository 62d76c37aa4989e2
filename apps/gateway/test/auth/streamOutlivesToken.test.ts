import { parseConfig } from '@skillgate/config';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { startTestProvider, type TestProvider } from '../helpers/oidcProvider.js';
import { modernPost, openSession } from '../helpers/rawHttp.js';
import { EXAMPLES_ROOT, REPO_ROOT } from '../helpers/testGateway.js';

// Every request re-checks its token, but a stream is one request: a GET stream or a subscriptions/listen
// stream opened with an access token kept receiving notifications for as long as the client held it open,
// long after the token expired.
// The gateway accepts a token up to 60 s past its exp (clock skew): exp 56 s ago leaves it about 4 s.
const LEFT_SECONDS = 4;

let idp: TestProvider;
let gateway: Gateway;
let url: URL;
beforeAll(async () => {
  idp = await startTestProvider([]);
  const config = parseConfig(
    {
      server: { public_url: 'http://127.0.0.1:1' },
      skills: { roots: [EXAMPLES_ROOT] },
      auth: {
        oauth: { issuer: idp.issuer, audience: 'https://streams.example.test/mcp', required_scopes: ['mcp'] },
      },
      rate_limit: { requests_per_second: 0 },
    },
    { baseDir: REPO_ROOT },
  );
  gateway = await createGateway(config, { env: process.env });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  url = new URL('/mcp', base);
});
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
});

/** A token that expires (for the gateway, skew included) LEFT_SECONDS from now. */
const shortLivedToken = () =>
  idp.sign({
    iss: idp.issuer,
    aud: 'https://streams.example.test/mcp',
    sub: 'streamer',
    scope: 'mcp',
    exp: Math.floor(Date.now() / 1000) - 60 + LEFT_SECONDS,
  });

/** Reads a streamed response body until it ends or breaks; `ended()` says whether it has. */
function watchEnd(response: Response): { ended: () => boolean; cancel: () => Promise<void> } {
  let ended = false;
  const reader = response.body?.getReader();
  void (async () => {
    try {
      while (reader !== undefined && !(await reader.read()).done);
    } catch {
      // A destroyed connection is an end too.
    }
    ended = true;
  })();
  return { ended: () => ended, cancel: async () => reader?.cancel().catch(() => undefined) };
}

describe('streams end when the access token that opened them expires', () => {
  it('a GET stream of a session opened with a token that then expires is closed', async () => {
    const authorization = `Bearer ${await shortLivedToken()}`;
    const session = await openSession(url, { authorization });
    const stream = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, authorization },
    });
    expect(stream.status).toBe(200);
    const watch = watchEnd(stream);
    try {
      await waitFor(watch.ended, { timeoutMs: 15_000, what: 'the GET stream to end' });
    } finally {
      await watch.cancel();
    }
    // The same token is now refused: the client needs a new one to listen again.
    const again = await fetch(url, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, authorization },
    });
    expect(again.status).toBe(401);
  });

  it('a subscriptions/listen stream opened with a token that then expires is closed', async () => {
    const token = await shortLivedToken();
    const stream = await modernPost(url, {
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true } },
      token: token,
    });
    expect(stream.status).toBe(200);
    const watch = watchEnd(stream);
    try {
      await waitFor(watch.ended, { timeoutMs: 15_000, what: 'the listen stream to end' });
    } finally {
      await watch.cancel();
    }
  });
});
