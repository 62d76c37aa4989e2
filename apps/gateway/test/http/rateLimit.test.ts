import { setTimeout as sleepUntilDue } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../helpers/rawHttp.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

const TOKENS = { steady: 'steady-token-0123456789', bursty: 'bursty-token-0123456789' };

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      auth: {
        tokens: [
          { name: 'steady', token_env: 'RL_STEADY' },
          { name: 'bursty', token_env: 'RL_BURSTY' },
        ],
      },
      // A window limiter shaped from these (3 per ⌈3 / 2⌉ = 2 s) lets only 1.5 requests per second through.
      rate_limit: { requests_per_second: 2, burst: 3 },
    },
    { ...process.env, RL_STEADY: TOKENS.steady, RL_BURSTY: TOKENS.bursty },
  );
});
afterAll(async () => {
  await gw.close();
});

const listTools = async (token: string, id: number) => {
  const answer = await post(
    gw.url,
    { jsonrpc: '2.0', id, method: 'tools/list' },
    { authorization: `Bearer ${token}` },
  );
  await answer.text();
  return { status: answer.status, retryAfter: answer.headers.get('retry-after') };
};

describe('rate limit on the real gateway (token bucket)', () => {
  it('never refuses a client sending exactly requests_per_second', async () => {
    const start = Date.now();
    const statuses: number[] = [];
    // The client under test paces itself: request i is sent at start + i × 500 ms (2 per second).
    for (let i = 0; i < 8; i++) {
      await sleepUntilDue(Math.max(0, start + i * 500 - Date.now()));
      statuses.push((await listTools(TOKENS.steady, i)).status);
    }
    expect(statuses.filter((s) => s === 429)).toEqual([]);
  });

  it('lets `burst` through at once, then answers 429 with the seconds until the next token', async () => {
    const answers = await Promise.all([1, 2, 3].map((id) => listTools(TOKENS.bursty, id)));
    expect(answers.map((a) => a.status)).not.toContain(429);
    const refused = await listTools(TOKENS.bursty, 4);
    expect(refused.status).toBe(429);
    // The next token is half a second away (one interval), not the end of a 2 s window.
    expect(refused.retryAfter).toBe('1');
  });
});
