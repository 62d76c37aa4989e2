import { readRegistryQueries } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  EXAMPLES_ROOT,
  startTestGateway,
  type TestClient,
  type TestGateway,
} from '../helpers/testGateway.js';

// A search is charged to its principal's rate limit by its distinct query terms (issue 40, item 4): a flood of
// 1,000-character queries within the request rate used to cost the gateway ~11 ms of CPU each. With a budget
// of 60 and almost no refill, count what each tenant gets.
const BURST = 60;
const FLOOD = 'flood-token-0123456789abcdefgh';
const QUIET = 'quiet-token-0123456789abcdefgh';

let gw: TestGateway;
let longQuery: string;
let shortQuery: string;

beforeAll(async () => {
  const queries = (await readRegistryQueries()).map((q) => q.query);
  // Natural-language text of many distinct words, cut at the 1,000 characters search_skills accepts.
  longQuery = [...queries]
    .sort((a, b) => b.length - a.length)
    .join(' ')
    .slice(0, 1000);
  shortQuery = 'count the words of a text';
  gw = await startTestGateway(
    {
      skills: { roots: [EXAMPLES_ROOT], disclosure: 'search' },
      auth: {
        tokens: [
          { name: 'flood', token_env: 'T_FLOOD', skills: ['*'] },
          { name: 'quiet', token_env: 'T_QUIET', skills: ['*'] },
        ],
      },
      rate_limit: { requests_per_second: 0.01, burst: BURST },
    },
    { ...process.env, T_FLOOD: FLOOD, T_QUIET: QUIET },
  );
});

afterAll(async () => {
  await gw?.close();
});

/** Searches for `query` until the first refusal: how many answered, and the refusal. */
async function searchUntilRefused(c: TestClient, query: string) {
  for (let answered = 0; answered <= BURST; answered++) {
    try {
      await c.client.callTool({ name: 'search_skills', arguments: { query } });
    } catch (error) {
      return { answered, error };
    }
  }
  return { answered: BURST + 1, error: undefined };
}

describe('search_skills charges the rate limit by its distinct query terms', () => {
  it('a flood of long queries spends its budget in a few searches; short ones cost one request each', async () => {
    const flood = await connectClient(gw.url, { token: FLOOD });
    const quiet = await connectClient(gw.url, { token: QUIET });
    const long = await searchUntilRefused(flood, longQuery);
    // ~80 distinct terms: 6 requests' worth each, so about 10 of them fit in the budget (60 without the charge).
    expect(long.answered).toBeGreaterThan(0);
    expect(long.answered).toBeLessThanOrEqual(BURST / 5);
    expect(long.error).toMatchObject({ code: -32000, message: expect.stringContaining('Rate limit') });
    // Another tenant's budget is its own, and a query of a few words costs one request.
    const short = await searchUntilRefused(quiet, shortQuery);
    expect(short.answered).toBeGreaterThan(BURST - 5);
    await flood.close();
    await quiet.close();
  });
});
