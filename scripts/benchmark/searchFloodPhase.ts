// What a search costs the gateway, and what a flood of them costs another tenant (issue 40, item 4): the
// gateway in its own process (servers.ts `gateway-search`: 491 ETOM skills, search mode, two tokens, the
// default rate limit). Rows: search_skills over HTTP p50 with the dev set's long queries next to load_skill,
// the gateway's CPU per call of each, and another tenant's p99 while one token floods 1,000-character
// queries from 12 connections, backing off by Retry-After as a client within the limit does; and (item 5)
// 40 tokens with distinct allow-lists searching in turn: index builds, rate and RSS growth.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readRegistryQueries, writeRegistrySkills } from '@skillgate/testkit';
import type { BenchContext } from './context.js';
import { type BenchServer, peakRss, percentile, serverMemory, startServer } from './support.js';
import { TARGETS } from './targets.js';

const TOKEN_A = 'bench-search-tenant-a-0123456789';
const TOKEN_B = 'bench-search-tenant-b-0123456789';
const FLOOD_CONNECTIONS = 12;
const TENANT_INTERVAL_MS = 50;

async function clientOf(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'bench-search-flood', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** The gateway process's CPU time so far (µs). */
async function gatewayCpu(url: string): Promise<number> {
  return ((await (await fetch(`${url}/__bench/cpu`)).json()) as { micros: number }).micros;
}

/** Milliseconds each call of `call` took, run `n` times one after the other, and the gateway's CPU per call. */
async function timed(url: string, n: number, call: (i: number) => Promise<unknown>) {
  const times: number[] = [];
  const cpuBefore = await gatewayCpu(url);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(i);
    times.push(performance.now() - t);
  }
  const cpuMs = (await gatewayCpu(url)) - cpuBefore;
  return { times, cpuMsPerCall: cpuMs / 1000 / n };
}

const ALLOW_LISTS = 40;

/** Searches from each allow-list token in turn for `seconds`: index builds it caused, rate, RSS growth. */
async function allowListChurn(server: BenchServer, queries: readonly string[], seconds: number) {
  const buildsOnSearch = async () => {
    const text = await (await fetch(`${server.url}/__bench/metrics`)).text();
    const line = text
      .split('\n')
      .find((l) => l.startsWith('skillgate_search_index_builds_total{trigger="search"}'));
    return Number(line?.split(' ').at(-1) ?? 0);
  };
  const clients = await Promise.all(
    Array.from({ length: ALLOW_LISTS }, (_, i) => clientOf(server.url, `bench-allow-list-${i}-0123456789`)),
  );
  const rssBefore = await peakRss(server.pid);
  const heapBefore = await serverMemory(server.url);
  const buildsBefore = await buildsOnSearch();
  const started = performance.now();
  let searches = 0;
  while (performance.now() - started < seconds * 1000) {
    const client = clients[searches % clients.length];
    await client?.callTool({
      name: 'search_skills',
      arguments: { query: queries[searches % queries.length] ?? '' },
    });
    searches++;
  }
  const elapsed = (performance.now() - started) / 1000;
  const result = {
    builds_on_search: (await buildsOnSearch()) - buildsBefore,
    searches_per_second: searches / elapsed,
    peak_rss_growth_bytes: (await peakRss(server.pid)) - rssBefore,
    retained_growth_bytes: (await serverMemory(server.url)) - heapBefore,
  };
  for (const client of clients) await client.close();
  return result;
}

/** Runs the phase and reports its rows; returns the numbers for latest.json. */
export async function searchFloodBench(options: BenchContext): Promise<Record<string, unknown>> {
  const { row, fmt, note, quick } = options;
  const queries = (await readRegistryQueries()).map((q) => q.query);
  // The dev set's long queries (its longest tenth: 200-680 characters), and 1,000-character ones of them.
  const long = [...queries].sort((a, b) => b.length - a.length).slice(0, Math.ceil(queries.length / 10));
  const thousand = long.map((_, i) =>
    [0, 1, 2, 3, 4]
      .map((k) => long[(i + k) % long.length])
      .join(' ')
      .slice(0, 1000),
  );
  const work = await mkdtemp(join(tmpdir(), 'skillgate-bench-search-flood-'));
  const { names } = await writeRegistrySkills({ root: work });
  const tokens = { BENCH_TOKEN_A: TOKEN_A, BENCH_TOKEN_B: TOKEN_B };
  // Calls back to back pass any rate limit: timed on a gateway without one, the flood on the default one.
  let server = await startServer('gateway-search', work, 'search', 'auto', {
    ...tokens,
    BENCH_RATE_LIMIT: 'off',
  });
  const out: Record<string, unknown> = {};
  const search = (client: Client, query: string) =>
    client.callTool({ name: 'search_skills', arguments: { query } });
  const loadWith = (client: Client, i: number) =>
    client.callTool({ name: 'load_skill', arguments: { name: names[i % names.length] ?? '' } });
  try {
    let quiet = await clientOf(server.url, TOKEN_B);
    let load = (i: number) => loadWith(quiet, i);
    const n = quick ? 100 : 300;
    // Warm: the first calls of each kind compile their paths.
    await timed(server.url, 20, (i) => Promise.all([search(quiet, long[i] ?? ''), load(i)]));
    const searches = await timed(server.url, n, (i) => search(quiet, long[i % long.length] ?? ''));
    const loads = await timed(server.url, n, load);
    const longSearches = await timed(server.url, quick ? 30 : 60, (i) =>
      search(quiet, thousand[i % thousand.length] ?? ''),
    );
    const searchP50 = percentile(searches.times, 0.5);
    const loadP50 = percentile(loads.times, 0.5);
    row(
      'search',
      'search_skills over HTTP p50 (ms), long dev queries, vs load_skill (491 skills)',
      fmt(searchP50, 2),
      fmt(loadP50, 2),
      fmt(searchP50 / loadP50, 2),
      TARGETS.searchFlood,
      searchP50 / loadP50,
    );
    row(
      'search',
      'gateway CPU per search (ms): long dev query / 1,000 characters, vs load_skill',
      `${fmt(searches.cpuMsPerCall, 2)} / ${fmt(longSearches.cpuMsPerCall, 2)}`,
      fmt(loads.cpuMsPerCall, 2),
      fmt(searches.cpuMsPerCall / loads.cpuMsPerCall, 2),
      '',
    );

    await quiet.close();
    await server.stop();
    server = await startServer('gateway-search', work, 'search', 'auto', tokens);
    quiet = await clientOf(server.url, TOKEN_B);
    load = (i: number) => loadWith(quiet, i);

    // Another tenant's calls (a load_skill and a dev-set search, in turn, 20 a second: within its own rate
    // limit), idle and then under the flood.
    const seconds = quick ? 4 : 8;
    const tenantCalls = async () => {
      const times: number[] = [];
      const until = performance.now() + seconds * 1000;
      for (let i = 0; performance.now() < until; i++) {
        const t = performance.now();
        await (i % 2 === 0 ? load(i) : search(quiet, queries[i % queries.length] ?? ''));
        const took = performance.now() - t;
        times.push(took);
        await sleep(Math.max(0, TENANT_INTERVAL_MS - took));
      }
      return times;
    };
    const idle = await tenantCalls();
    const flooders = await Promise.all(
      Array.from({ length: FLOOD_CONNECTIONS }, () => clientOf(server.url, TOKEN_A)),
    );
    const rssBefore = await peakRss(server.pid);
    const cpuBefore = await gatewayCpu(server.url);
    let stop = false;
    let answered = 0;
    let refused = 0;
    const flood = flooders.map(async (client, c) => {
      for (let i = c; !stop; i += FLOOD_CONNECTIONS) {
        try {
          await search(client, thousand[i % thousand.length] ?? '');
          answered++;
        } catch {
          // Refused (rate limit): wait as Retry-After (1 s) says, as a client within the limit does.
          refused++;
          await sleep(1000);
        }
      }
    });
    const started = performance.now();
    const flooded = await tenantCalls();
    const floodSeconds = (performance.now() - started) / 1000;
    const cpuSeconds = ((await gatewayCpu(server.url)) - cpuBefore) / 1e6;
    stop = true;
    await Promise.all(flood);
    const rssGrowth = (await peakRss(server.pid)) - rssBefore;
    const idleP99 = percentile(idle, 0.99);
    const floodP99 = percentile(flooded, 0.99);
    row(
      'search',
      "another tenant's p99 (ms) under a flood of 1,000-character searches (12 connections), vs idle",
      fmt(floodP99, 1),
      fmt(idleP99, 1),
      fmt(floodP99 / idleP99, 2),
      TARGETS.searchFlood,
      floodP99 / idleP99,
    );
    row(
      'search',
      'flood: gateway CPU (s/s) / searches answered per s / peak RSS growth (MiB)',
      `${fmt(cpuSeconds / floodSeconds, 2)} / ${fmt(answered / floodSeconds, 1)} / ${fmt(rssGrowth / 2 ** 20, 1)}`,
      '',
      '',
      '',
    );
    note(
      `search flood: ${answered} searches answered and ${refused} refused in ${fmt(floodSeconds, 1)} s; the default rate limit (50/s, burst 200) charges a search one request more per 16 distinct query terms (docs/limits.md, "Searches").`,
    );
    out.http = { search_p50_ms: searchP50, load_skill_p50_ms: loadP50 };
    out.cpu_ms = {
      long_search: searches.cpuMsPerCall,
      thousand_char_search: longSearches.cpuMsPerCall,
      load_skill: loads.cpuMsPerCall,
    };
    out.flood = {
      idle_p99_ms: idleP99,
      flood_p99_ms: floodP99,
      gateway_cpu_seconds_per_second: cpuSeconds / floodSeconds,
      answered,
      refused,
      peak_rss_growth_bytes: rssGrowth,
    };
    for (const client of [quiet, ...flooders]) await client.close();
    await server.stop();

    // Item 5: more allow-lists than a catalog once kept indexes for (16), searching in turn.
    server = await startServer('gateway-search', work, 'search', 'auto', {
      ...tokens,
      BENCH_ALLOW_LISTS: String(ALLOW_LISTS),
    });
    out.allow_lists = await allowListChurn(server, queries, quick ? 4 : 8);
    const churn = out.allow_lists as Awaited<ReturnType<typeof allowListChurn>>;
    row(
      'search',
      `${ALLOW_LISTS} allow-lists searching in turn: index builds on search / searches per s / peak RSS growth / retained after GC (MiB)`,
      `${churn.builds_on_search} / ${fmt(churn.searches_per_second, 0)} / ${fmt(churn.peak_rss_growth_bytes / 2 ** 20, 1)} / ${fmt(churn.retained_growth_bytes / 2 ** 20, 1)}`,
      '',
      '',
      TARGETS.searchNoBuilds,
      churn.builds_on_search,
    );
  } finally {
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
  return out;
}
