// The search level (docs/disclosure.md): quality of search_skills over MCP on the ETOM dev set next to plain
// BM25 in the same run, the first context at 7 / 491 / 1,000 / 10,000 skills in both eras, search latency
// in-process and over HTTP, index memory per 1,000 skills and the longest event-loop stall of a sliced build.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseConfig } from '@skillgate/config';
import { createGateway } from '@skillgate/gateway';
import {
  buildSkillIndex,
  buildSkillIndexInSlices,
  type Catalog,
  createCatalog,
  loadSkills,
} from '@skillgate/skills';
import { type RegistryQuery, readRegistryQueries, writeRegistrySkills } from '@skillgate/testkit';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import MiniSearch from 'minisearch';
import pino from 'pino';
import type { BenchContext } from './context.js';
import { TARGETS } from './targets.js';

const REPO = join(import.meta.dirname, '../..');
const EXAMPLES = join(REPO, 'examples/skills');

interface Quality {
  readonly recall1: number;
  readonly recall5: number;
  readonly mrr10: number;
}

/** recall@1, recall@5 and MRR@10 of ranked skill names against the labels. */
function quality(
  queries: readonly RegistryQuery[],
  skillOf: ReadonlyMap<string, string>,
  ranked: readonly (readonly string[])[],
): Quality {
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  queries.forEach((q, i) => {
    const want = new Set(q.servers.map((s) => skillOf.get(s)));
    const at = (ranked[i] ?? []).slice(0, 10).findIndex((name) => want.has(name));
    if (at === 0) r1++;
    if (at >= 0 && at < 5) r5++;
    if (at >= 0) mrr += 1 / (at + 1);
  });
  const n = queries.length;
  return { recall1: r1 / n, recall5: r5 / n, mrr10: mrr / n };
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function gatewayOn(roots: readonly string[]) {
  const config = parseConfig(
    { skills: { roots }, rate_limit: { requests_per_second: 0 } },
    { baseDir: REPO },
  );
  const gateway = await createGateway(config, { env: process.env, logger: pino({ level: 'silent' }) });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url: new URL('/mcp', base) };
}

async function v1Client(url: URL) {
  const client = new Client({ name: 'bench-search', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

async function v2ModernClient(url: URL) {
  const client = new V2Client(
    { name: 'bench-search', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(new V2Transport(url));
  return client;
}

/** Tokens (o200k) and tool count of a first context: tools/list plus the initialize instructions. */
async function firstContext(url: URL) {
  const legacy = await v1Client(url);
  const legacyTools = (await legacy.listTools()).tools;
  const legacyTokens =
    encode(JSON.stringify(legacyTools)).length + encode(legacy.getInstructions() ?? '').length;
  await legacy.close();
  const modern = await v2ModernClient(url);
  const modernTools = (await modern.listTools()).tools;
  const modernTokens =
    encode(JSON.stringify(modernTools)).length + encode(modern.getInstructions() ?? '').length;
  await modern.close();
  return {
    legacy: { tools: legacyTools.length, tokens: legacyTokens },
    modern: { tools: modernTools.length, tokens: modernTokens },
  };
}

async function catalogOf(root: string): Promise<Catalog> {
  const { skills } = await loadSkills({ roots: [root], validation: 'lenient' });
  return createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300 });
}

const heap = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};

/** Runs the search phase and reports its rows; returns the numbers for latest.json. */
export async function searchBench(options: BenchContext): Promise<Record<string, unknown>> {
  const { row, fmt, note, quick } = options;
  const out: Record<string, unknown> = {};
  const queries = await readRegistryQueries();
  const work = await mkdtemp(join(tmpdir(), 'skillgate-bench-search-'));
  try {
    // 491 skills: quality over MCP, next to plain BM25 over the same skills in this process.
    const root491 = join(work, '491');
    const { skillOf } = await writeRegistrySkills({ root: root491 });
    const { gateway, url } = await gatewayOn([root491]);
    const client = await v1Client(url);
    const ranked: string[][] = [];
    for (const q of queries) {
      const result = await client.callTool({
        name: 'search_skills',
        arguments: { query: q.query, limit: 10 },
      });
      const page = result.structuredContent as { results: Array<{ skill: string }> };
      ranked.push(page.results.map((r) => r.skill));
    }
    // One HTTP round trip each: a search and a load_skill, alternated.
    const searchMs: number[] = [];
    const loadMs: number[] = [];
    for (let i = 0; i < (quick ? 100 : 400); i++) {
      const q = queries[i % queries.length]?.query ?? 'deploy';
      let t = performance.now();
      await client.callTool({ name: 'search_skills', arguments: { query: q } });
      searchMs.push(performance.now() - t);
      t = performance.now();
      await client.callTool({
        name: 'load_skill',
        arguments: { name: ranked[i % ranked.length]?.[0] ?? '' },
      });
      loadMs.push(performance.now() - t);
    }
    await client.close();
    await gateway.close();
    const ours = quality(queries, skillOf, ranked);

    const catalog491 = await catalogOf(root491);
    const plain = new MiniSearch({ idField: 'name', fields: ['name', 'description', 'body'] });
    plain.addAll([...catalog491.skills.values()].map((e) => e.skill));
    const base = quality(
      queries,
      skillOf,
      queries.map((q) =>
        plain
          .search(q.query)
          .slice(0, 10)
          .map((r) => String(r.id)),
      ),
    );
    out.quality = { search_skills: ours, plain_bm25: base, queries: queries.length };
    const pct = (n: number) => fmt(n, 3);
    row(
      'search',
      'recall@1 (ETOM dev, 491 skills)',
      pct(ours.recall1),
      pct(base.recall1),
      fmt(ours.recall1 / base.recall1, 2),
      TARGETS.searchRecall1,
      ours.recall1 / base.recall1,
    );
    row(
      'search',
      'recall@5',
      pct(ours.recall5),
      pct(base.recall5),
      fmt(ours.recall5 / base.recall5, 2),
      TARGETS.searchRecall5,
      ours.recall5 / base.recall5,
    );
    row('search', 'MRR@10', pct(ours.mrr10), pct(base.mrr10), fmt(ours.mrr10 / base.mrr10, 2), '');
    searchMs.sort((a, b) => a - b);
    loadMs.sort((a, b) => a - b);
    out.http = { search_p50_ms: percentile(searchMs, 0.5), load_skill_p50_ms: percentile(loadMs, 0.5) };
    row(
      'search',
      'search_skills over HTTP p50 (ms), vs load_skill',
      fmt(percentile(searchMs, 0.5), 2),
      fmt(percentile(loadMs, 0.5), 2),
      fmt(percentile(searchMs, 0.5) / percentile(loadMs, 0.5), 2),
      '',
    );
    note(
      'search: recall against the ETOM dev set (554 labelled queries; any listed server counts); plain BM25 is MiniSearch with its defaults over name + description + body of the same skills.',
    );

    // First context in both eras at several catalog sizes (the default config: the cap switches to search).
    const sizes: Array<[string, string[]]> = [
      ['7', [EXAMPLES]],
      ['491', [root491]],
    ];
    for (const n of quick ? [1000] : [1000, 10_000]) {
      const root = join(work, String(n));
      await writeRegistrySkills({ root, count: n });
      sizes.push([n.toLocaleString('en-US'), [root]]);
    }
    out.firstContext = {};
    for (const [label, roots] of sizes) {
      const started = await gatewayOn(roots);
      const sizesOut = await firstContext(started.url);
      await started.gateway.close();
      (out.firstContext as Record<string, unknown>)[label] = sizesOut;
      for (const era of ['legacy', 'modern'] as const) {
        const { tools, tokens } = sizesOut[era];
        row(
          'search',
          `first context, ${label} skills, ${era} (tools / tokens)`,
          `${tools} / ${fmt(tokens)}`,
          '',
          '',
          TARGETS.searchFirstContext,
          [tools, tokens],
        );
      }
    }

    // In-process latency, memory per 1,000 skills and the longest stall of a sliced build.
    out.latency = {};
    for (const n of quick ? [1000] : [1000, 10_000]) {
      const catalog = await catalogOf(join(work, String(n)));
      const entries = [...catalog.skills.values()];
      const before = heap();
      const index = buildSkillIndex(entries);
      const bytes = heap() - before;
      const times: number[] = [];
      for (let round = 0; round < (quick ? 1 : 3); round++) {
        for (const q of queries) {
          const t = performance.now();
          index.search({ query: q.query, limit: 5 });
          times.push(performance.now() - t);
        }
      }
      times.sort((a, b) => a - b);
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const t = performance.now();
      await buildSkillIndexInSlices(entries);
      const buildMs = performance.now() - t;
      delay.disable();
      const stallMs = delay.max / 1e6;
      const p50 = percentile(times, 0.5);
      const p99 = percentile(times, 0.99);
      (out.latency as Record<string, unknown>)[String(n)] = {
        p50_ms: p50,
        p99_ms: p99,
        index_mib_per_1000: bytes / 2 ** 20 / (n / 1000),
        sliced_build_ms: buildMs,
        max_stall_ms: stallMs,
      };
      const label = n.toLocaleString('en-US');
      row(
        'search',
        `in-process search p50 / p99 (ms), ${label} skills`,
        `${fmt(p50, 2)} / ${fmt(p99, 2)}`,
        '',
        '',
        n === 1000 ? TARGETS.searchLatency1k : TARGETS.searchLatency10k,
        p50,
      );
      row(
        'search',
        `index memory per 1,000 skills (MiB), ${label} skills`,
        fmt(bytes / 2 ** 20 / (n / 1000), 1),
        '',
        '',
        '',
      );
      row(
        'search',
        `sliced index build (ms) / longest stall (ms), ${label} skills`,
        `${fmt(buildMs)} / ${fmt(stallMs, 1)}`,
        '',
        '',
        TARGETS.searchStall,
        stallMs,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return out;
}
