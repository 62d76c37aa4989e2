import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RegistryServer,
  readRegistryQueries,
  readRegistryServers,
  waitFor,
  writeRegistrySkills,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// 40 tokens, each with its own allow-list of the 491-skill ETOM catalogue (the skills starting with a-c plus
// one skill of its own): more distinct allow-lists than the 16 indexes a catalog kept, so searching in turn
// rebuilt an index on nearly every search (issue 40, item 5). Two of them are checked against gateways that
// serve only their skills.
const TOKENS = 40;
const SHARED = '[a-c]*';
const tokenOf = (i: number) => `allow-list-token-${String(i).padStart(2, '0')}-0123456789`;

let work: string;
let gw: TestGateway;
let extras: string[];
const references = new Map<number, TestGateway>();

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-allow-lists-'));
  const servers = await readRegistryServers();
  const { names } = await writeRegistrySkills({ root: join(work, 'all') });
  extras = names.filter((name) => !/^[a-c]/.test(name)).slice(0, TOKENS);
  const env: Record<string, string | undefined> = { ...process.env };
  const tokens = extras.map((extra, i) => {
    env[`T_${i}`] = tokenOf(i);
    return { name: `tenant-${i}`, token_env: `T_${i}`, skills: [SHARED, extra] };
  });
  // /metrics on its own port: with auth on, the MCP port's asks for an admin token.
  gw = await startTestGateway(
    {
      skills: { roots: [join(work, 'all')], disclosure: 'search' },
      auth: { tokens },
      observability: { metrics_port: 0 },
    },
    env,
  );
  for (const i of [0, TOKENS - 1]) {
    const own = (name: string) => /^[a-c]/.test(name) || name === extras[i];
    const visible: RegistryServer[] = servers.filter((_, at) => own(names[at] ?? ''));
    const root = join(work, `only-${i}`);
    await writeRegistrySkills({ root, servers: visible });
    references.set(
      i,
      await startTestGateway(
        {
          skills: { roots: [root], disclosure: 'search' },
          auth: { tokens: [{ name: `tenant-${i}`, token_env: `T_${i}`, skills: [SHARED, extras[i]] }] },
        },
        env,
      ),
    );
  }
}, 120_000);

afterAll(async () => {
  await gw?.close();
  for (const reference of references.values()) await reference.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/** The counter's value on /metrics (0 when the series is not there yet). */
async function builds(trigger: 'warm' | 'search'): Promise<number> {
  const text = await (await fetch(`${gw.metricsBase}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`skillgate_search_index_builds_total{trigger="${trigger}"}`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

describe('search with more allow-lists than a catalog ever kept indexes for', () => {
  it('builds one index for the catalog whatever the number of allow-lists, and every score stays exact', async () => {
    await waitFor(async () => (await builds('warm')) === 1, { what: "the catalog's index" });
    const queries = (await readRegistryQueries()).slice(0, 6).map((q) => q.query);
    const clients = await Promise.all(
      Array.from({ length: TOKENS }, (_, i) => connectClient(gw.url, { token: tokenOf(i) })),
    );
    const ask = (client: (typeof clients)[number]['client'], query: string) =>
      client.callTool({ name: 'search_skills', arguments: { query, limit: 20 } });
    // Every tenant in turn, twice around: each allow-list searches after 39 others have.
    for (let round = 0; round < 2; round++) {
      for (const [i, { client }] of clients.entries()) {
        const own = await ask(client, `${extras[i]} ${queries[round] ?? ''}`);
        expect(own.isError, `tenant ${i}`).not.toBe(true);
        // Its own skill is found by its name: the allow-list is the one searched.
        expect(JSON.stringify(own.structuredContent), `tenant ${i}`).toContain(`"${extras[i]}"`);
      }
    }
    expect(await builds('search')).toBe(0);
    expect(await builds('warm')).toBe(1);
    // After the churn, two tenants get exactly the results and scores of a gateway serving only their skills.
    for (const [i, reference] of references) {
      const alone = await connectClient(reference.url, { token: tokenOf(i) });
      for (const query of [...queries, `${extras[i]} server`]) {
        const [got, want] = await Promise.all([
          ask(clients[i]?.client ?? alone.client, query),
          ask(alone.client, query),
        ]);
        expect(got.structuredContent, `tenant ${i}: ${query}`).toEqual(want.structuredContent);
      }
      await alone.close();
    }
    for (const c of clients) await c.close();
  }, 120_000);
});
