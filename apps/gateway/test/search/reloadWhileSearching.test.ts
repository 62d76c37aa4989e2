import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skillMd, waitFor, writeRegistrySkills } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// The 491 servers of the ETOM catalogue as skills, default config (past tools.max_listed: search). A reload
// that adds one skill and removes another runs while a client keeps searching.
let work: string;
let root: string;
let names: readonly string[];
let gw: TestGateway;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-search-reload-'));
  root = join(work, 'registry');
  ({ names } = await writeRegistrySkills({ root }));
  // The client searches back to back for as long as the reload runs: no rate limit in the way.
  gw = await startTestGateway({ skills: { roots: [root] }, rate_limit: { requests_per_second: 0 } });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

interface SearchOut {
  results: Array<{ skill: string }>;
}

/** The counter's value on /metrics (0 when the series is not there yet). */
async function builds(trigger: string): Promise<number> {
  const text = await (await fetch(`${gw.base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`skillgate_search_index_builds_total{trigger="${trigger}"}`));
  return Number(line?.split(' ').at(-1) ?? 0);
}

describe('a reload of a 491-skill catalog while searching', () => {
  it('searches answer throughout (old or new catalog, never an error), then reflect the new catalog', async () => {
    const c = await connectClient(gw.url);
    const search = async (query: string) => {
      const result = await c.client.callTool({ name: 'search_skills', arguments: { query, limit: 3 } });
      expect(result.isError).not.toBe(true);
      return (result.structuredContent as unknown as SearchOut).results.map((r) => r.skill);
    };
    // The every-skill index was built after the first catalog build, so no search had to build it.
    await waitFor(async () => (await builds('warm')) === 1, { what: 'the index built after the catalog' });
    const removed = names[0] ?? '';
    expect((await search(removed))[0]).toBe(removed);
    expect(await search('zorblatt ledgers')).toEqual([]);
    expect(await builds('search')).toBe(0);

    await mkdir(join(root, 'zorblatt-keeper'));
    await writeFile(
      join(root, 'zorblatt-keeper', 'SKILL.md'),
      skillMd('zorblatt-keeper', 'Reconciles zorblatt ledgers.'),
    );
    await rm(join(root, removed), { recursive: true });
    let reloaded = false;
    const reload = gw.gateway.catalogs.reload().then(() => {
      reloaded = true;
    });
    const seen = new Set<string>();
    // Bounded: the reload of ~500 skills takes well under this many searches on the slowest machine here.
    for (let i = 0; i < 500 && !reloaded; i += 1) {
      seen.add((await search('zorblatt ledgers')).join(',') || '(old catalog)');
    }
    await reload;
    expect(seen.size).toBeGreaterThan(0);
    expect([...seen].every((s) => s === '(old catalog)' || s === 'zorblatt-keeper')).toBe(true);

    expect(await search('zorblatt ledgers')).toEqual(['zorblatt-keeper']);
    expect(await search(removed)).not.toContain(removed);
    // The new catalog got its own every-skill index, built after the reload, not on a search.
    await waitFor(async () => (await builds('warm')) === 2, { what: 'the index built after the reload' });
    expect(await builds('search')).toBe(0);
    const loaded = await c.client.callTool({ name: 'load_skill', arguments: { name: 'zorblatt-keeper' } });
    expect(JSON.stringify(loaded.content)).toContain('zorblatt');
    await c.close();
  });
});
