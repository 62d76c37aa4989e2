import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../helpers/rawHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

const TOKENS = { flood: 'body-flood-token-0123456789', calm: 'body-calm-token-0123456789' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      auth: {
        tokens: [
          { name: 'flood', token_env: 'BODY_FLOOD' },
          { name: 'calm', token_env: 'BODY_CALM' },
        ],
      },
      // A slow refill, so the test sees each charge; 64 KiB of body is one request's worth.
      rate_limit: { requests_per_second: 0.1, burst: 30, bytes_per_request: 65_536 },
    },
    { ...process.env, BODY_FLOOD: TOKENS.flood, BODY_CALM: TOKENS.calm },
  );
});
afterAll(async () => {
  await gw.close();
});

/** A 2026-07-28 tools/list carrying `padding` bytes of an unknown param (any shape would do). */
const list = async (token: string, padding: number) => {
  const answer = await post(
    gw.url,
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META, pad: 'x'.repeat(padding) } },
    { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
  );
  await answer.text();
  return answer.status;
};

describe('large bodies are charged to the principal that sends them', () => {
  it('a flood of 880 KB bodies spends its budget 14 requests at a time, while another principal is served', async () => {
    // 880 KB = 13 × 64 KiB and some: 1 + 13 = 14 of the 30 tokens each; the third body has no budget left.
    expect([await list(TOKENS.flood, 880_000), await list(TOKENS.flood, 880_000)]).toEqual([200, 200]);
    expect(await list(TOKENS.flood, 880_000)).toBe(429);
    // Small requests cost one: the two tokens left still serve two of them.
    expect([await list(TOKENS.flood, 10), await list(TOKENS.flood, 10)]).toEqual([200, 200]);
    expect(await list(TOKENS.flood, 10)).toBe(429);
    expect(await list(TOKENS.calm, 880_000)).toBe(200);
  });
});
