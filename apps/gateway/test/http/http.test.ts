import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT, initializeBody, messagesOf, openSession, post } from '../helpers/rawHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({
    server: { body_limit_bytes: 64 * 1024, allowed_origins: ['https://app.example.com'] },
  });
});
afterAll(async () => {
  await gw.close();
});

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

describe('MCP endpoint over raw HTTP', () => {
  it('issues a session id at initialize and answers on an SSE stream', async () => {
    const response = await post(gw.url, initializeBody());
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toMatch(/^[0-9a-f-]{36}$/);
    const [message] = await messagesOf(response);
    expect(message).toMatchObject({ id: 1, result: { serverInfo: { name: 'skillgate' } } });
  });

  it('sends the list_changed notification on the get_info response stream, before the result', async () => {
    const session = await openSession(gw.url);
    const response = await post(gw.url, call(7, 'skill_text-stats_get_info'), { 'mcp-session-id': session });
    const messages = await messagesOf(response);
    expect(messages.map((m) => m.method ?? `result:${String(m.id)}`)).toEqual([
      'notifications/tools/list_changed',
      'result:7',
    ]);
    const again = await messagesOf(
      await post(gw.url, call(8, 'skill_text-stats_get_info'), { 'mcp-session-id': session }),
    );
    expect(again.map((m) => m.method ?? `result:${String(m.id)}`)).toEqual(['result:8']);
  });

  it('answers plain JSON when nothing else is sent (native transport) or SSE (SDK transport)', async () => {
    const transport = process.env.SKILLGATE_TEST_TRANSPORT ?? 'native';
    const session = await openSession(gw.url);
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 5, method: 'tools/list' },
      { 'mcp-session-id': session },
    );
    expect(response.headers.get('content-type')).toContain(
      transport === 'native' ? 'application/json' : 'text/event-stream',
    );
    expect((await messagesOf(response))[0]).toHaveProperty('result.tools');
  });

  it('refuses a second initialize on an existing session', async () => {
    const session = await openSession(gw.url);
    const again = await post(gw.url, initializeBody(9), { 'mcp-session-id': session });
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('answers 400 to a 2025-era request without a session id, 405 to GET and DELETE without one', async () => {
    expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(400);
    // Outside a 2025-era session there is no stream to GET and nothing to DELETE (2026-07-28 has no sessions).
    expect((await fetch(gw.url, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    expect((await fetch(gw.url, { method: 'DELETE' })).status).toBe(405);
  });

  it('answers 404 to an unknown or forged session id', async () => {
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { 'mcp-session-id': 'forged' },
    );
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: -32001 } });
  });

  it('ends a session on DELETE and answers 404 afterwards', async () => {
    const session = await openSession(gw.url);
    const deleted = await fetch(gw.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': session, 'content-type': 'application/json' },
    });
    expect(deleted.status).toBe(200);
    const after = await post(
      gw.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': session },
    );
    expect(after.status).toBe(404);
  });

  it('answers malformed JSON with a JSON-RPC parse error and keeps serving', async () => {
    const response = await post(gw.url, '{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    expect((await post(gw.url, initializeBody())).status).toBe(200);
  });

  it('refuses an oversized body with 413 and a non-JSON body with 415', async () => {
    const big = JSON.stringify({ ...call(1, 'x'), padding: 'x'.repeat(100 * 1024) });
    const tooLarge = await post(gw.url, big, {});
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toMatchObject({ error: { data: { reason: 'BODY_TOO_LARGE' } } });
    const text = await fetch(gw.url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: ACCEPT },
      body: 'hi',
    });
    expect(text.status).toBe(415);
  });

  it('refuses a foreign Origin with 403, allows a loopback or configured one with CORS headers kept', async () => {
    expect((await post(gw.url, initializeBody(), { origin: 'https://evil.example' })).status).toBe(403);
    const loopback = await post(gw.url, initializeBody(), { origin: 'http://localhost:6274' });
    expect(loopback.status).toBe(200);
    expect(loopback.headers.get('access-control-allow-origin')).toBe('http://localhost:6274');
    expect(loopback.headers.get('access-control-expose-headers')).toContain('Mcp-Session-Id');
    const configured = await post(gw.url, initializeBody(), { origin: 'https://app.example.com' });
    expect(configured.status).toBe(200);
  });

  it('refuses a non-loopback Host header while bound to loopback (DNS rebinding)', async () => {
    // fetch cannot override Host, so this one goes through node:http.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const body = JSON.stringify(initializeBody());
      const req = request(gw.url, {
        method: 'POST',
        headers: { host: 'evil.example:3000', 'content-type': 'application/json', accept: ACCEPT },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
  });

  it('refuses an unsupported MCP-Protocol-Version', async () => {
    const session = await openSession(gw.url);
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      {
        'mcp-session-id': session,
        'mcp-protocol-version': '1999-01-01',
      },
    );
    expect(response.status).toBe(400);
  });

  it('answers 405 to other methods', async () => {
    const response = await fetch(gw.url, {
      method: 'PUT',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('serves healthz, readyz and Prometheus metrics', async () => {
    expect(await (await fetch(`${gw.base}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${gw.base}/readyz`)).json()).toMatchObject({ status: 'ready' });
    const metrics = await (await fetch(`${gw.base}/metrics`)).text();
    expect(metrics).toContain('# TYPE skillgate_sessions_open gauge');
    expect(metrics).toMatch(/skillgate_sessions_created_total \d+/);
  });
});
