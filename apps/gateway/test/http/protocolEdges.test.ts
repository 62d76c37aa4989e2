import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeBody, messagesOf, openSession, post } from '../helpers/rawHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

/** Opens a 2025-03-26 session, the only revision with JSON-RPC batches; returns its id. */
async function openBatchSession(url: URL): Promise<string> {
  const init = await post(url, {
    ...initializeBody(),
    params: { ...initializeBody().params, protocolVersion: '2025-03-26' },
  });
  await init.text();
  return init.headers.get('mcp-session-id') ?? '';
}

// Regression tests for protocol edges that once went unanswered or crossed answers (docs/limits.md).
describe('protocol edges', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ rate_limit: { requests_per_second: 1, burst: 40 } });
  });
  afterAll(async () => gw.close());

  it('answers a request with an unknown extra top-level key', async () => {
    const session = await openSession(gw.url);
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 9, method: 'tools/list', foo: 1 },
      { 'mcp-session-id': session },
    );
    expect(response.status).toBe(200);
    const [message] = await messagesOf(response);
    expect(message).toMatchObject({ id: 9, result: { tools: expect.any(Array) } });
  });

  it('never gives one POST the result of another with the same id in the same session', async () => {
    const session = await openSession(gw.url);
    const headers = { 'mcp-session-id': session };
    const slow = post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'skill_gateway-probe_get_info', arguments: {} },
      },
      headers,
    );
    const fast = post(gw.url, { jsonrpc: '2.0', id: 5, method: 'tools/list' }, headers);
    const answers = await Promise.all([slow, fast]);
    const bodies = await Promise.all(answers.map((r) => messagesOf(r)));
    // Each POST is answered: with its own result, or with a refusal of the duplicate id.
    for (const [index, response] of answers.entries()) {
      const last = bodies[index]?.at(-1) ?? {};
      if (response.status === 400) expect(last).toMatchObject({ error: { code: -32600 } });
      else if (index === 0) expect(last).toMatchObject({ id: 5, result: { content: expect.any(Array) } });
      else expect(last).toMatchObject({ id: 5, result: { tools: expect.any(Array) } });
    }
  });

  it('charges every element of a batch to the rate limit', async () => {
    const session = await openBatchSession(gw.url);
    const batch = Array.from({ length: 16 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await post(gw.url, batch, { 'mcp-session-id': session });
      statuses.push(response.status);
      await response.text();
    }
    // A burst of 40 covers two batches of 16 (plus the initialize), never four.
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(statuses.at(-1)).toBe(429);
  });

  it('refuses a batch above the size bound', async () => {
    const session = await openBatchSession(gw.url);
    const batch = Array.from({ length: 17 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
    const response = await post(gw.url, batch, { 'mcp-session-id': session });
    expect([400, 429]).toContain(response.status);
  });
});

describe('response size bound', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ server: { max_response_bytes: 65_536 } });
  });
  afterAll(async () => gw.close());

  it('answers an oversized result with an error instead of the bytes', async () => {
    const session = await openSession(gw.url);
    const unlock = await post(
      gw.url,
      { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'skill_gateway-probe_get_info' } },
      { 'mcp-session-id': session },
    );
    await unlock.text();
    const response = await post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'skill_gateway-probe_read_big_txt', arguments: {} },
      },
      { 'mcp-session-id': session },
    );
    const messages = await messagesOf(response);
    const last = messages.at(-1) ?? {};
    expect(last).toMatchObject({ id: 1, error: { code: -32603, data: { reason: 'RESPONSE_TOO_LARGE' } } });
  });
});

describe('batch bounds', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Reads are cut to 30,000 bytes, so two fit the 65,536-byte bound and a third does not.
    gw = await startTestGateway({
      server: { max_response_bytes: 65_536 },
      resources: { max_text_bytes: 30_000 },
    });
  });
  afterAll(async () => gw.close());

  it('refuses a batch without a session before parsing it', async () => {
    // Not even valid JSON: only a refusal that never parses answers -32600 rather than -32700.
    const response = await post(gw.url, '[{"jsonrpc":"2.0","id":1,"method":"ping"}, {"broken');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: -32600, message: expect.stringContaining('2025-03-26') },
    });
    const modern = await post(gw.url, '[{"broken', {
      'mcp-session-id': 'x',
      'mcp-protocol-version': '2025-11-25',
    });
    expect(await modern.json()).toMatchObject({ error: { code: -32600 } });
  });

  it('streams the answers of a batch and bounds them together', async () => {
    const session = await openBatchSession(gw.url);
    const call = (id: number, name: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {} },
    });
    const unlock = await post(gw.url, call(0, 'skill_gateway-probe_get_info'), { 'mcp-session-id': session });
    await unlock.text();
    const reads = [1, 2, 3, 4].map((id) => call(id, 'skill_gateway-probe_read_big_txt'));
    const response = await post(gw.url, reads, { 'mcp-session-id': session });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const messages = await messagesOf(response);
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4]);
    const answered = messages.filter((m) => 'result' in m);
    const refused = messages.filter((m) => 'error' in m);
    expect(answered).toHaveLength(2);
    for (const m of refused) {
      expect(m).toMatchObject({ error: { code: -32603, data: { reason: 'RESPONSE_TOO_LARGE' } } });
      expect((m.error as { message: string }).message).toContain('whole batch');
    }
  });

  it("runs a batch's requests one at a time, in order, so a heavy batch never lands all at once", async () => {
    const session = await openBatchSession(gw.url);
    const headers = { 'mcp-session-id': session };
    const unlock = await post(
      gw.url,
      { jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: 'skill_gateway-probe_get_info' } },
      headers,
    );
    await unlock.text();
    // Run concurrently, the ping would be answered while the script still runs.
    const slow = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'skill_gateway-probe_run_slow_py', arguments: { args: ['--seconds', '0.3'] } },
    };
    const response = await post(gw.url, [slow, { jsonrpc: '2.0', id: 2, method: 'ping' }], headers);
    const messages = await messagesOf(response);
    expect(messages.map((m) => m.id)).toEqual([1, 2]);
    expect(messages[0]).toMatchObject({ result: { isError: false } });
  });
});
