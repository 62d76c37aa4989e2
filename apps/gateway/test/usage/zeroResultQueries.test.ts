import { waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, EXAMPLES_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// What a zero-result search leaves behind: its count always, its text only with observability.keep_queries,
// and never a secret that an agent pasted into it.
const OPS = 'zero-ops-token-8c7b6a5d4e';
// No dictionary word in it: the query it is pasted into finds nothing.
const AGENT = 'zqxv-3f2e1d0c9b8a7f6e5d';
const ENV = { ...process.env, ZQ_OPS: OPS, ZQ_AGENT: AGENT };

const gateways: TestGateway[] = [];
afterEach(async () => Promise.all(gateways.splice(0).map((g) => g.close())));

async function searchInVain(keepQueries: boolean): Promise<string> {
  const gw = await startTestGateway(
    {
      skills: { roots: [EXAMPLES_ROOT], disclosure: 'search' },
      observability: { keep_queries: keepQueries },
      auth: {
        tokens: [
          { name: 'ops', token_env: 'ZQ_OPS', admin: true },
          { name: 'agent', token_env: 'ZQ_AGENT' },
        ],
      },
    },
    ENV,
  );
  gateways.push(gw);
  const c = await connectClient(gw.url, { token: AGENT });
  // No word of it is in any skill: it finds nothing (a known word beside unknown ones would rank by that word).
  const query = `zzqx qqvx with ${AGENT} and ghp_${'a'.repeat(36)}`;
  await c.client.callTool({ name: 'search_skills', arguments: { query } });
  await c.client.callTool({ name: 'search_skills', arguments: { query: '*' } });
  await c.close();
  const page = async () =>
    (await fetch(`${gw.base}/`, { headers: { Authorization: `Bearer ${OPS}` } })).text();
  await waitFor(async () => (await page()).includes('Searches that found nothing: 1'));
  return page();
}

describe('zero-result searches on the operator page', () => {
  it('keeps the query text with keep_queries, with the tokens in it redacted', async () => {
    const html = await searchInVain(true);
    expect(html).toContain('data-query="zzqx qqvx with [redacted] and [redacted]"');
    expect(html).not.toContain(AGENT);
    expect(html).not.toContain('ghp_');
  });

  it('counts them without their text when keep_queries is off (the default)', async () => {
    const html = await searchInVain(false);
    expect(html).not.toContain('data-query=');
    expect(html).not.toContain('zzqx');
    expect(html).toContain('Their texts are not kept (observability.keep_queries).');
  });
});
