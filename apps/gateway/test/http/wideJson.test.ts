import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSession, post } from '../helpers/rawHttp.js';
import {
  connectClient,
  startTestGateway,
  type TestClient,
  type TestGateway,
} from '../helpers/testGateway.js';
import { connectV2, type V2TestClient } from '../helpers/v2Client.js';

// Bodies that cost the SDK's validation dearly (a 60,000-key _meta: ~350 ms of CPU each) or overflowed its
// stack (5,000 nested arrays: HTTP 500 in 2026-07-28, no answer at all in a 2025 session), and a cursor the
// modern tools/list never issued: each answered at once, and the healthy clients of both eras go on.
const MODERN = '2026-07-28';
const meta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernHeaders = (method: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method });
const wideMeta = (extra: Record<string, unknown> = {}) => ({
  ...extra,
  ...Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, i])),
});
/** 5,000 nested arrays as JSON text (JSON.stringify itself would overflow the stack on them). */
const DEEP = `${'['.repeat(5000)}${']'.repeat(5000)}`;
/** A JSON-RPC request body as text, with DEEP put where `"DEEP"` stands in `message`. */
const withDeep = (message: unknown): string => JSON.stringify(message).replace('"DEEP"', DEEP);

let gw: TestGateway;
let legacy: TestClient;
let modern: V2TestClient;
beforeAll(async () => {
  gw = await startTestGateway({ rate_limit: { requests_per_second: 0 } });
  legacy = await connectClient(gw.url);
  modern = await connectV2(gw.url, { era: 'modern' });
});
afterAll(async () => {
  await legacy.close();
  await modern.close();
  await gw.close();
});

/** Both healthy clients still list their tools. */
async function healthyClientsServed(): Promise<void> {
  expect((await legacy.client.listTools()).tools.length).toBeGreaterThan(0);
  expect((await modern.client.listTools()).tools.length).toBeGreaterThan(0);
}

interface RpcAnswer {
  readonly id: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

describe('wide or deep JSON', () => {
  it('a 60,000-key _meta in a 2025 session is answered -32602 at once, with its id', async () => {
    const session = await openSession(gw.url);
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 41, method: 'tools/list', params: { _meta: wideMeta() } },
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    );
    const answer = (await response.json()) as RpcAnswer;
    expect(answer.id).toBe(41);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toContain('server.max_json_keys');
    await healthyClientsServed();
  });

  it('a 60,000-key _meta on a 2026-07-28 request is answered -32602 at once, with its id', async () => {
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 'w', method: 'tools/list', params: { _meta: wideMeta(meta) } },
      modernHeaders('tools/list'),
    );
    const answer = (await response.json()) as RpcAnswer;
    expect(answer).toMatchObject({ id: 'w', error: { code: -32602 } });
    await healthyClientsServed();
  });

  it('5,000 nested arrays in a 2025 session get an answer (-32602), not silence', async () => {
    const session = await openSession(gw.url);
    const response = await post(
      gw.url,
      withDeep({
        jsonrpc: '2.0',
        id: 42,
        method: 'tools/call',
        params: { name: 'skill_text-stats_get_info', arguments: { x: 'DEEP' } },
      }),
      { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    );
    const answer = (await response.json()) as RpcAnswer;
    expect(answer).toMatchObject({ id: 42, error: { code: -32602 } });
    expect(answer.error?.message).toContain('server.max_json_depth');
    await healthyClientsServed();
  });

  it('5,000 nested arrays on a 2026-07-28 request get -32602, not HTTP 500', async () => {
    const response = await post(
      gw.url,
      withDeep({ jsonrpc: '2.0', id: 43, method: 'tools/list', params: { _meta: { ...meta, x: 'DEEP' } } }),
      modernHeaders('tools/list'),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 43, error: { code: -32602 } });
    await healthyClientsServed();
  });
});

describe('an unknown cursor on a modern tools/list', () => {
  it.each([
    ['a made-up string', 'page-2'],
    ['a number', 7],
  ])('(%s) is -32602 at once, with its id', async (_label, cursor) => {
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 'c', method: 'tools/list', params: { _meta: meta, cursor } },
      modernHeaders('tools/list'),
    );
    expect(await response.json()).toMatchObject({ id: 'c', error: { code: -32602 } });
    await healthyClientsServed();
  });
});
