import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT, initializeBody, post } from '../helpers/rawHttp.js';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// Sentinels: a configured token, and a made-up one a client might send; neither may reach a log line.
const TOKEN = 'cfg-token-4f1d9a7c2b8e6d30';
const SECRET = 'SECRET-made-up-7e2c91aa04';
const lines: string[] = [];
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway(
    // At debug every request writes its line, so every path a token could travel is logged.
    {
      auth: { tokens: [{ name: 'agent-url', token_env: 'URL_TEST_TOKEN' }] },
      logging: { level: 'debug' },
    },
    { ...process.env, URL_TEST_TOKEN: TOKEN },
    lines,
  );
});
afterAll(async () => {
  await gw.close();
});

describe('secrets never reach the logs', () => {
  it('logs no token sent as ?access_token= or as Authorization: Bearer, valid or not, and still logs the path', async () => {
    const withQuery = (token: string) => new URL(`${gw.url.href}?access_token=${token}&token=${token}`);
    // A made-up token, in the URL and the header: 401.
    const refused = await post(withQuery(SECRET), initializeBody(), { authorization: `Bearer ${SECRET}` });
    expect(refused.status).toBe(401);
    // The configured token, in the URL and the header: refused too, a token never belongs in a URL.
    const inUrl = await post(withQuery(TOKEN), initializeBody(), { authorization: `Bearer ${TOKEN}` });
    expect(inUrl.status).toBe(401);
    expect(inUrl.headers.get('www-authenticate')).toContain('error="invalid_request"');
    // The configured token in the header only: a session opens.
    const accepted = await post(gw.url, initializeBody(), { authorization: `Bearer ${TOKEN}` });
    expect(accepted.status).toBe(200);
    await accepted.text();
    // A URL no route knows, and a GET with a token in the query.
    expect((await fetch(`${gw.base}/nope?access_token=${SECRET}`)).status).toBe(404);
    expect(
      (await fetch(`${gw.base}/healthz?access_token=${SECRET}`, { headers: { accept: ACCEPT } })).status,
    ).toBe(200);
    // And a normal client session with the token in its header.
    const client = await connectClient(gw.url, { token: TOKEN });
    await client.client.listTools();
    await client.close();

    const all = lines.join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(TOKEN);
    const urls = lines
      .map((l) => JSON.parse(l) as { req?: { url?: string } })
      .flatMap((r) => (r.req?.url === undefined ? [] : [r.req.url]));
    expect(urls).toEqual(expect.arrayContaining(['/mcp', '/nope', '/healthz']));
    for (const url of urls) expect(url).not.toContain('?');
  });
});
