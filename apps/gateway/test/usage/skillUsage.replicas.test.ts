import { type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replicaCluster.js';
import { connectClient, EXAMPLES_ROOT, PROBE_ROOT } from '../helpers/testGateway.js';

// Skill usage across replicas: calls answered by two gateways sharing one real redis-server show up, added
// together, on the operator page of either (in a real headless Chromium), and per replica in /metrics.
const OPS = 'usage-ops-token-1a2b3c4d5e';
const AGENT_A = 'usage-agent-a-token-6f7a8b9c';
const AGENT_B = 'usage-agent-b-token-0d1e2f3a';
const ENV = { USAGE_OPS: OPS, USAGE_A: AGENT_A, USAGE_B: AGENT_B };
const EMPTY_QUERY = 'zzqx quantum llama invoices';

let redis: RedisServer;
let cluster: ReplicaCluster;
let browser: Browser;

beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  cluster = await startReplicaCluster({
    redisUrl: redis.url,
    env: ENV,
    config: {
      skills: { roots: [PROBE_ROOT, EXAMPLES_ROOT] },
      scripts: { kill_grace_ms: 200 },
      // A client named Searcher* gets the search surface (search_skills, load_skill).
      clients: [{ match: { name: 'Searcher*' }, disclosure: 'search' }],
      observability: { keep_queries: true },
      auth: {
        tokens: [
          { name: 'ops', token_env: 'USAGE_OPS', admin: true },
          { name: 'agent-a', token_env: 'USAGE_A' },
          { name: 'agent-b', token_env: 'USAGE_B' },
        ],
      },
    },
  });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await cluster?.close();
  await redis?.close();
});

const replica = (i: number) => {
  const r = cluster.replicas[i];
  if (r === undefined) throw new Error(`no replica ${i}`);
  return r;
};

/** The cells of one usage row, by column, read from the rendered page. */
async function usageRow(page: Page, skill: string): Promise<Record<string, string>> {
  const row = page.locator(`#usage tr[data-usage="${skill}"]`);
  if ((await row.count()) === 0) return {};
  const cells = await row
    .locator('td')
    .evaluateAll((tds) => tds.map((td) => [td.getAttribute('data-label') ?? '', td.textContent ?? '']));
  return Object.fromEntries(cells);
}

describe('skill usage across two replicas', () => {
  it('counts get_info, load_skill, runs by outcome, reads and zero-result searches of both replicas on either operator page', async () => {
    // agent-a on replica 0: unlocks gateway-probe, runs a script that succeeds, one that fails, one stopped
    // by its timeout, and reads a reference file.
    const a = await connectClient(replica(0).url, { token: AGENT_A });
    await a.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    await a.client.callTool({ name: 'skill_gateway-probe_run_echo-args_py', arguments: { args: ['hi'] } });
    await a.client.callTool({ name: 'skill_gateway-probe_run_fail_sh', arguments: {} });
    await a.client.callTool({ name: 'skill_gateway-probe_run_hang_sh', arguments: { timeout: 1 } });
    await a.client.callTool({ name: 'skill_gateway-probe_read_notes_md', arguments: {} });
    // agent-b on replica 1: a search that finds nothing, then loads csv-tools.
    const b = await connectClient(replica(1).url, { token: AGENT_B, name: 'Searcher test' });
    const search = await b.client.callTool({ name: 'search_skills', arguments: { query: EMPTY_QUERY } });
    expect((search.structuredContent as { results: unknown[] }).results).toEqual([]);
    await b.client.callTool({ name: 'load_skill', arguments: { name: 'csv-tools' } });
    await a.close();
    await b.close();

    // Replica 1's page shows replica 0's calls once replica 0 has flushed (about a second).
    const page = await browser.newPage();
    await page.setExtraHTTPHeaders({ Authorization: `Bearer ${OPS}` });
    const probe = async () => {
      await page.goto(`${replica(1).base}/`);
      return usageRow(page, 'gateway-probe');
    };
    await waitFor(async () => (await probe()).reads === '1', { timeoutMs: 10_000 });
    expect(await usageRow(page, 'gateway-probe')).toEqual({
      skill: 'gateway-probe',
      info: '1',
      'runs ok': '1',
      'runs failed': '1',
      'runs at a limit': '1',
      reads: '1',
      'upstream calls': '0',
      principals: 'agent-a',
    });
    expect(await usageRow(page, 'csv-tools')).toMatchObject({
      info: '1',
      'runs ok': '0',
      principals: 'agent-b',
    });
    // Most used first.
    const order = await page
      .locator('#usage tr[data-usage]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-usage')));
    expect(order).toEqual(['gateway-probe', 'csv-tools']);
    const never = (await page.locator('#never-used').textContent()) ?? '';
    expect(never).toContain('text-stats');
    expect(never).not.toContain('csv-tools');
    expect(
      await page.locator('#usage h3', { hasText: 'Searches that found nothing' }).textContent(),
    ).toContain(': 1');
    expect(await page.locator(`#usage tr[data-query="${EMPTY_QUERY}"] td`).allTextContents()).toEqual([
      EMPTY_QUERY,
      '1',
    ]);
    await page.close();

    // Replica 0's page has the same totals.
    const other = await browser.newPage();
    await other.setExtraHTTPHeaders({ Authorization: `Bearer ${OPS}` });
    await other.goto(`${replica(0).base}/`);
    await waitFor(async () => (await usageRow(other, 'csv-tools')).info === '1', { timeoutMs: 10_000 });
    await other.close();

    // Metrics are per replica, labelled by skill and event only (the principal is never a label).
    // With auth, /metrics on the MCP port answers an admin token.
    const scrape = async (base: string) =>
      (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${OPS}` } })).text();
    const metrics0 = await scrape(replica(0).base);
    const metrics1 = await scrape(replica(1).base);
    expect(metrics0).toContain('skillgate_skill_usage_total{event="run_limit",skill="gateway-probe"} 1');
    expect(metrics0).not.toContain('skill="csv-tools"');
    expect(metrics1).toContain('skillgate_skill_usage_total{event="info",skill="csv-tools"} 1');
    expect(metrics1).toMatch(/^skillgate_search_empty_total 1$/m);
    expect(`${metrics0}${metrics1}`).not.toContain('agent-a');
  });
});
