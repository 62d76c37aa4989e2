// pnpm bench: token savings, throughput, scale and script overhead, each next to a reference measured in
// the same run on the same machine. Writes bench-results/latest.json. BENCH_QUICK=1 for a short smoke run.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createCatalog, type Disclosure, loadSkills } from '@skillgate/skills';
import autocannon from 'autocannon';
import { execa } from 'execa';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

import { credentialsBench } from './credentialsPhase.js';
import { hotPaths } from './hotPaths.js';
import { oauthBench } from './oauth.js';
import { operatorPageBench } from './operatorPage.js';
import { reloadStallBench } from './reloadStallPhase.js';
import { replicas } from './replicas.js';
import { sandboxRunsBench } from './sandboxRunsPhase.js';
import { searchFloodBench } from './searchFloodPhase.js';
import { searchBench } from './searchPhase.js';
import { skillsListBench } from './skillsList.js';
import { sourcesBench } from './sourcesPhase.js';
import {
  type BenchServer,
  generateSkills,
  openSessions,
  peakRss,
  percentile,
  rpc,
  serverMemory,
  startServer,
} from './support.js';
import { tracingCost } from './tracingPhase.js';
import { upstreamMemory } from './upstreamMemory.js';
import { upstreamOverheadBench } from './upstreamPhase.js';
import { upstreamTokens } from './upstreamTokens.js';

const QUICK = process.env.BENCH_QUICK === '1';
const REPO = join(import.meta.dirname, '../..');
const EXAMPLES = join(REPO, 'examples/skills');
const rows: Array<{
  group: string;
  metric: string;
  value: string;
  reference: string;
  ratio: string;
  target: string;
  verdict: string;
}> = [];
const results: Record<string, unknown> = {};
/** Explanations printed under the table. */
const notes: string[] = [];
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const row = (
  group: string,
  metric: string,
  value: string,
  reference: string,
  ratio: string,
  target: string,
  ok?: boolean,
) =>
  rows.push({
    group,
    metric,
    value,
    reference,
    ratio,
    target,
    verdict: ok === undefined ? '' : ok ? 'PASS' : 'MISS',
  });

async function tokens(roots: Array<[string, string]>) {
  for (const [label, root] of roots) {
    const { skills } = await loadSkills({ roots: [root], validation: 'lenient' });
    const catalog = createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300 });
    // listTools(view) is exactly the array the gateway sends as tools/list `tools`.
    const count = (d: Disclosure) =>
      encode(JSON.stringify(catalog.listTools({ disclosure: d, unlocked: new Set() }))).length;
    const [namespaced, universal, eager] = [count('namespaced'), count('universal'), count('eager')];
    let overhead = 0;
    for (const e of catalog.skills.values())
      overhead += encode(JSON.stringify(e.getInfoTool)).length - encode(e.skill.description).length;
    const perSkill = overhead / catalog.skills.size;
    const target = label === '1,000 skills' ? 0.15 : 0.25;
    results[`tokens_${label}`] = { namespaced, universal, eager, overhead_per_skill: perSkill };
    row(
      'tokens',
      `initial tools/list, namespaced (${label})`,
      fmt(namespaced),
      `eager ${fmt(eager)}`,
      `${fmt((namespaced / eager) * 100, 1)}%`,
      `<= ${target * 100}%`,
      label === '100 skills' ? undefined : namespaced / eager <= target,
    );
    row(
      'tokens',
      `initial tools/list, universal (${label})`,
      fmt(universal),
      `eager ${fmt(eager)}`,
      `${fmt((universal / eager) * 100, 1)}%`,
      '',
    );
    row(
      'tokens',
      `overhead per skill beyond description (${label})`,
      fmt(perSkill, 1),
      '',
      '',
      '<= 20',
      perSkill <= 20,
    );
    if (label === 'examples') {
      const info = catalog.skills.get('csv-tools')?.getInfoText ?? '';
      row('tokens', 'typical get_info result (csv-tools)', fmt(encode(info).length), '', '', '');
    }
  }
}

/** Upstream servers behind skills: each era's first tools/list against listing the servers directly. */
async function upstreamTokenRows() {
  const { servers, direct, legacy, modern } = await upstreamTokens();
  results.upstream_tokens = { servers, direct, legacy, modern };
  row(
    'upstreams',
    'initial tools/list tokens, 2025 era (namespaced)',
    fmt(legacy.tokens),
    `direct ${fmt(direct.tokens)}`,
    `${fmt((legacy.tokens / direct.tokens) * 100, 1)}%`,
    '<= 15%',
    legacy.tokens / direct.tokens <= 0.15,
  );
  row(
    'upstreams',
    'tools/list tools, 2026-07-28 (catalog)',
    `${modern.tools} (${fmt(modern.tokens)} tokens)`,
    `namespaced ${legacy.tools}`,
    `+${modern.tools - legacy.tools}`,
    '<= namespaced + 3',
    modern.tools <= legacy.tools + 3,
  );
  notes.push(
    `Upstreams: ${servers.join(', ')} as auto skills; "direct" is every tool of the three servers (${direct.tools} tools) as a client listing them itself gets them.`,
  );
}

/** Upstream servers behind skills: memory per connection, and per session by the upstream's tool count. */
async function upstreamMemoryRows() {
  const result = await upstreamMemory({ sessions: QUICK ? 100 : 400 });
  results.upstream_memory = result;
  row(
    'upstreams',
    'gateway memory per upstream connection (HTTP), heap / RSS',
    `${fmt(result.heapPerUpstream / 1024, 1)} / ${fmt(result.rssPerUpstream / 1024, 1)} KiB`,
    `${result.upstreams} upstreams vs none`,
    '',
    'reported',
  );
  const { fewTools, manyTools } = result.perSession;
  const growth = manyTools / fewTools - 1;
  row(
    'upstreams',
    `heap per session with an upstream skill unlocked (${fmt(result.toolCounts.many)} tools)`,
    `${fmt(manyTools / 1024, 1)} KiB`,
    `${result.toolCounts.few} tools ${fmt(fewTools / 1024, 1)} KiB`,
    `${growth >= 0 ? '+' : ''}${fmt(growth * 100, 1)}%`,
    'within 10%',
    Math.abs(growth) <= 0.1,
  );
  notes.push(
    `Upstream memory: heap is heapUsed + external after a forced GC; per session, ${result.sessions} 2025-era sessions each unlocked the upstream's auto skill (get_info) and listed its tools.`,
  );
}

/** The better of two rounds (more req/s), with the errors of both: alternating rounds keep each side's best. */
const bestRound = <T extends { readonly rps: number; readonly errors: number }>(a: T | undefined, b: T): T =>
  a === undefined ? b : { ...(b.rps > a.rps ? b : a), errors: a.errors + b.errors };

async function load(url: string, sessions: string[], body: object, seconds: number) {
  let next = 0;
  const result = await autocannon({
    url: `${url}/mcp`,
    method: 'POST',
    connections: sessions.length,
    duration: seconds,
    body: JSON.stringify(body),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    // Each keep-alive connection speaks for its own session.
    setupClient: (client) => {
      client.setHeaders({
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        'mcp-session-id': sessions[next++ % sessions.length] ?? '',
      });
    },
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

async function throughput(seconds: number) {
  const listBody = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  const infoBody = {
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'skill_csv-tools_get_info', arguments: {} },
  };
  type Load = Awaited<ReturnType<typeof load>>;
  const kinds = ['gateway', 'sdk-reference', 'fastify-reference'];
  const servers = await Promise.all(kinds.map((kind) => startServer(kind, EXAMPLES)));
  const measured: Record<string, { list: Load; info: Load }> = {};
  try {
    const sessions: string[][] = [];
    for (const [i, kind] of kinds.entries()) {
      const server = servers[i] as BenchServer;
      const { ids } =
        kind === 'fastify-reference'
          ? { ids: Array.from({ length: 50 }, (_, n) => `s${n}`) }
          : await openSessions(server.url, 50);
      if (kind !== 'fastify-reference') for (const id of ids) await rpc(server.url, id, infoBody);
      sessions.push(ids);
    }
    // Alternating rounds, the best of each kept (as in hotPaths.ts): on 2 cores shared with the load
    // generator one round of the bare route alone has read 40 % above the others.
    for (let round = 0; round < (QUICK ? 1 : 3); round++) {
      for (const [i, kind] of kinds.entries()) {
        const url = (servers[i] as BenchServer).url;
        const ids = sessions[i] as string[];
        const list = await load(url, ids, listBody, seconds);
        const info = await load(url, ids, infoBody, seconds);
        measured[kind] = {
          list: bestRound(measured[kind]?.list, list),
          info: bestRound(measured[kind]?.info, info),
        };
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  results.throughput = measured;
  const g = measured.gateway;
  const a = measured['sdk-reference'];
  const b = measured['fastify-reference'];
  if (g === undefined || a === undefined || b === undefined) return;
  for (const [name, key] of [
    ['tools/list', 'list'],
    ['get_info (tools/call)', 'info'],
  ] as const) {
    const mine = g[key];
    const ref = a[key];
    row(
      'http',
      `${name} req/s (50 sessions)`,
      fmt(mine.rps),
      `SDK-style ${fmt(ref.rps)}`,
      `${fmt(mine.rps / ref.rps, 1)}x`,
      key === 'list' ? '>= 4x' : '',
      key === 'list' ? mine.rps >= 4 * ref.rps : undefined,
    );
    row(
      'http',
      `${name} p50 / p99 ms`,
      `${mine.p50} / ${mine.p99}`,
      `SDK-style ${ref.p50} / ${ref.p99}`,
      '',
      key === 'list' ? 'p99 < ref p50' : '',
      key === 'list' ? mine.p99 < ref.p50 : undefined,
    );
    if (mine.errors > 0 || ref.errors > 0)
      row('http', `${name} errors`, String(mine.errors), String(ref.errors), '', '0', mine.errors === 0);
  }
  row(
    'http',
    'tools/list req/s vs bare Fastify',
    fmt(g.list.rps),
    `bare Fastify ${fmt(b.list.rps)}`,
    `${fmt((g.list.rps / b.list.rps) * 100, 0)}%`,
    '>= 50%',
    g.list.rps >= 0.5 * b.list.rps,
  );
}

/** The two eras on the same catalog (100 skills): modern catalog list vs legacy list vs the ceiling. */
async function eras(root: string, seconds: number) {
  const { skills } = await loadSkills({ roots: [root], validation: 'lenient' });
  const catalog = createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300 });
  const tokensOf = (d: Disclosure) =>
    encode(JSON.stringify(catalog.listTools({ disclosure: d, unlocked: new Set() }))).length;
  const twoTools = encode(
    JSON.stringify(catalog.listTools({ disclosure: 'universal', unlocked: new Set() }).slice(2, 4)),
  ).length;
  row(
    'eras',
    'initial tools/list tokens, modern catalog (100 skills)',
    fmt(tokensOf('catalog')),
    `legacy namespaced ${fmt(tokensOf('namespaced'))} + 2 tools ${fmt(twoTools)}`,
    '',
    '<= namespaced + 2 tools',
    tokensOf('catalog') <= tokensOf('namespaced') + twoTools,
  );
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const modernList = async (url: string) => {
    const result = await autocannon({
      url: `${url}/mcp`,
      method: 'POST',
      connections: 50,
      duration: seconds,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta } }),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
    });
    return { rps: result.requests.average, p50: result.latency.p50, errors: result.non2xx + result.errors };
  };
  const gateway = await startServer('gateway', root);
  const ceilingServer = await startServer('fastify-spliced', root, 'catalog');
  type Load = { readonly rps: number; readonly p50: number; readonly errors: number };
  let legacy: Load | undefined;
  let modern: Load | undefined;
  let ceiling: Load | undefined;
  try {
    const { ids } = await openSessions(gateway.url, 50);
    // Alternating rounds, the best of each kept (as in hotPaths.ts): the two eras are within a few per cent
    // of each other, less than one round's noise on 2 cores shared with the load generator.
    for (let round = 0; round < (QUICK ? 1 : 3); round++) {
      legacy = bestRound(
        legacy,
        await load(gateway.url, ids, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, seconds),
      );
      modern = bestRound(modern, await modernList(gateway.url));
      ceiling = bestRound(ceiling, await modernList(ceilingServer.url));
    }
  } finally {
    await Promise.all([gateway.stop(), ceilingServer.stop()]);
  }
  if (legacy === undefined || modern === undefined || ceiling === undefined) return;
  results.eras = { legacy, modern, ceiling };
  row(
    'eras',
    'modern tools/list req/s vs legacy (100 skills)',
    fmt(modern.rps),
    `legacy ${fmt(legacy.rps)}`,
    `${fmt((modern.rps / legacy.rps) * 100, 0)}%`,
    '>= 100%',
    modern.rps >= legacy.rps,
  );
  row(
    'eras',
    'modern tools/list req/s vs bare Fastify, id spliced',
    fmt(modern.rps),
    `bare Fastify ${fmt(ceiling.rps)}`,
    `${fmt((modern.rps / ceiling.rps) * 100, 0)}%`,
    '>= 60%',
    modern.rps >= 0.6 * ceiling.rps,
  );
  if (modern.errors > 0) row('eras', 'modern tools/list errors', String(modern.errors), '', '', '0', false);
}

/**
 * Every hot call path of both eras (100 skills, 20 connections) against a raw node:http server and a bare
 * Fastify route, both sending the gateway's own answer bytes for that request, id spliced in (hotPaths.ts).
 */
async function hotPathRows(root: string, seconds: number) {
  const measured = await hotPaths(root, seconds);
  results.hot_paths = measured;
  for (const path of measured) {
    row(
      'hot paths',
      `${path.era === 'modern' ? '2026-07-28' : '2025 session'} ${path.label} req/s (p50 / p99 ms)`,
      `${fmt(path.rps)} (${path.p50} / ${path.p99})`,
      `raw node:http ${fmt(path.ceilingRps)}; CPU ${fmt(path.cpuMicros)} vs ${fmt(path.ceilingCpuMicros)} µs/req (${fmt(path.cpuShare, 2)}); Fastify route ${fmt(path.fastify.rps)} (${fmt(path.fastify.share, 2)}, ${fmt(path.fastify.cpuMicros)} µs/req)${path.sdkPath === undefined ? '' : `; SDK path ${fmt(path.sdkPath.rps)} (${fmt(path.sdkPath.share, 2)})`}`,
      fmt(path.share, 2),
      '>= 0.7 raw',
      path.share >= 0.7,
    );
    if (path.errors > 0) row('hot paths', `${path.label} errors`, String(path.errors), '', '', '0', false);
  }
}

/** Tracing off (the default) vs every request traced and exported vs the code before tracing existed. */
async function tracingRows(root: string, seconds: number) {
  const measured = await tracingCost(root, seconds);
  results.tracing = measured;
  for (const r of measured) {
    row(
      'tracing',
      `${r.path} req/s, tracing off`,
      `${fmt(r.off.rps)} (${fmt(r.off.cpu)} µs/req)`,
      r.before === undefined ? '' : `before tracing ${fmt(r.before.rps)} (${fmt(r.before.cpu)} µs/req)`,
      r.before === undefined ? '' : fmt(r.off.rps / r.before.rps, 2),
      '>= 0.95',
      r.before === undefined ? undefined : r.off.rps / r.before.rps >= 0.95,
    );
    row(
      'tracing',
      `${r.path} req/s, every request traced`,
      `${fmt(r.on.rps)} (${fmt(r.on.cpu)} µs/req)`,
      `off ${fmt(r.off.rps)}`,
      fmt(r.on.rps / r.off.rps, 2),
      '',
    );
  }
}

async function scale(small: string, thousand: string, tenThousand: string | undefined, sessions: number) {
  for (const [label, root] of [
    ['1,000 skills', thousand],
    ['10,000 skills', tenThousand],
  ] as const) {
    if (root === undefined) continue;
    const server = await startServer('gateway', root);
    const rss = await peakRss(server.pid);
    results[`startup_${label}`] = { ms: server.startupMs, peak_rss: rss };
    row('scale', `start-up to listening (${label})`, `${fmt(server.startupMs)} ms`, '', '', '');
    row('scale', `peak RSS (${label})`, `${fmt(rss / 2 ** 20)} MiB`, '', '', '');
    await server.stop();
  }
  const perSession: Record<string, number> = {};
  const rates: Record<string, number> = {};
  for (const [label, kind, root, n] of [
    ['gateway, 10 skills', 'gateway', small, sessions],
    ['gateway, 1,000 skills', 'gateway', thousand, sessions],
    ['SDK-style, 1,000 skills', 'sdk-reference', thousand, Math.min(sessions, 200)],
  ] as const) {
    const server = await startServer(kind, root);
    await openSessions(server.url, 20);
    const before = await serverMemory(server.url);
    const { perSecond } = await openSessions(server.url, n);
    const after = await serverMemory(server.url);
    perSession[label] = (after - before) / n;
    rates[label] = perSecond;
    await server.stop();
  }
  results.memory_per_session = perSession;
  results.session_open_rate = rates;
  const g10 = perSession['gateway, 10 skills'] ?? 0;
  const g1k = perSession['gateway, 1,000 skills'] ?? 0;
  const ref = perSession['SDK-style, 1,000 skills'] ?? 1;
  row('scale', 'memory per idle session (10 skills)', `${fmt(g10 / 1024, 1)} KiB`, '', '', '');
  row(
    'scale',
    'memory per idle session (1,000 skills)',
    `${fmt(g1k / 1024, 1)} KiB`,
    `SDK-style ${fmt(ref / 1024)} KiB`,
    `${fmt(ref / g1k, 0)}x less`,
    '<= 32 KiB',
    g1k <= 32 * 1024,
  );
  row(
    'scale',
    'per-session memory, 1,000 vs 10 skills',
    `${fmt((g1k / g10 - 1) * 100, 1)}%`,
    '',
    '',
    'within 10%',
    Math.abs(g1k / g10 - 1) <= 0.1,
  );
  const rg = rates['gateway, 1,000 skills'] ?? 0;
  const ra = rates['SDK-style, 1,000 skills'] ?? 1;
  row(
    'scale',
    'session open rate (1,000 skills)',
    `${fmt(rg)}/s`,
    `SDK-style ${fmt(ra)}/s`,
    `${fmt(rg / ra, 1)}x`,
    '>= 10x',
    rg >= 10 * ra,
  );
}

/**
 * Catalog build (load + createCatalog) of 1,000 skills x 10 files with sha256 digests of every file (what the
 * gateway does for the Skills extension) against the same build without them, in the same run: rounds
 * alternate so that both see the same page cache; the median of each is compared.
 */
async function catalogBuild(root: string, rounds: number) {
  const build = async (digests: boolean) => {
    const t = performance.now();
    const { skills, problems } = await loadSkills({ roots: [root], validation: 'lenient', digests });
    createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300, problems });
    return performance.now() - t;
  };
  await build(true); // warm the page cache and the JIT
  const withDigests: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < rounds; i++) {
    without.push(await build(false));
    withDigests.push(await build(true));
  }
  const [w, wo] = [percentile(withDigests, 50), percentile(without, 50)];
  results.catalog_build = { with_digests_ms: withDigests, without_ms: without };
  row(
    'scale',
    'catalog build, 1,000 skills x 10 files, with digests (median ms)',
    fmt(w),
    `without digests ${fmt(wo)}`,
    `${fmt(w / wo, 2)}x`,
    '<= 1.5x',
    w / wo <= 1.5,
  );
}

/** The Skills extension's skills/list (1,000 skills) against modern tools/list on the same gateway. */
async function skillsList(root: string, seconds: number) {
  const { tools, skills, laterPage, sdkPage } = await skillsListBench(root, seconds);
  results.skills_list = { tools, skills, later_page: laterPage, sdk_page: sdkPage };
  const pct = (n: number) => `${fmt((n / tools.rps) * 100, 0)}%`;
  row(
    'skills',
    'skills/list req/s, first page of 1,000 skills',
    fmt(skills.rps),
    `modern tools/list ${fmt(tools.rps)}`,
    pct(skills.rps),
    '>= 50%',
    skills.rps >= 0.5 * tools.rps,
  );
  row(
    'skills',
    'skills/list req/s, second page',
    fmt(laterPage.rps),
    `modern tools/list ${fmt(tools.rps)}`,
    pct(laterPage.rps),
    '',
  );
  row(
    'skills',
    'skills/list req/s, mid-page cursor (SDK path)',
    fmt(sdkPage.rps),
    `modern tools/list ${fmt(tools.rps)}`,
    pct(sdkPage.rps),
    '',
  );
  for (const [name, load] of [
    ['tools/list', tools],
    ['skills/list', skills],
    ['skills/list page 2', laterPage],
    ['skills/list mid-page', sdkPage],
  ] as const) {
    if (load.errors > 0) row('skills', `${name} errors`, String(load.errors), '', '', '0', false);
  }
}

/** The operator page of 1,000 skills (10 files each): server time and browser load, beside tools/list. */
async function operatorPage(root: string, runs: number) {
  const f = await operatorPageBench(root, runs);
  results.operator_page = f;
  row(
    'operator',
    'GET / of 1,000 skills, median ms',
    fmt(f.pageMs, 1),
    `modern tools/list ${fmt(f.toolsListMs, 1)} ms`,
    `${fmt(f.pageMs / f.toolsListMs, 1)}x`,
    '',
  );
  row(
    'operator',
    'page in headless Chromium, navigation to load, median ms',
    fmt(f.browserMs, 0),
    `${fmt(f.pageBytes / 1024, 0)} KiB, ${fmt(f.rows)} skill rows`,
    `${fmt(f.browserMs / 1000, 2)} s`,
    '<= 1 s',
    f.browserMs <= 1000 && f.rows === 1000,
  );
}

async function scriptOverhead(root: string, runs: number) {
  // The same gateway with and without the sandbox, measured in alternation so load hits both alike.
  const plain = await startServer('gateway', root, 'namespaced', 'off');
  const sandboxed = await startServer('gateway', root, 'namespaced', 'bwrap');
  const call = async (server: BenchServer, session: string, id: number, name: string) => {
    const t = performance.now();
    const response = await rpc(server.url, session, {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, arguments: {} },
    });
    const elapsed = performance.now() - t;
    const result = response.result as { isError?: boolean } | undefined;
    if (result === undefined || result.isError === true)
      throw new Error(`${name}: ${JSON.stringify(response)}`);
    return elapsed;
  };
  const sessions: string[] = [];
  for (const server of [plain, sandboxed]) {
    const [session] = (await openSessions(server.url, 1)).ids;
    if (session === undefined) throw new Error('no session');
    await call(server, session, 1, 'skill_gen-00000_get_info');
    sessions.push(session);
  }
  const [plainSession = '', sandboxSession = ''] = sessions;
  const viaGateway: number[] = [];
  const inSandbox: number[] = [];
  const direct: number[] = [];
  const script = join(root, 'gen-00000', 'scripts', 'check.sh');
  for (let i = 0; i < runs; i++) {
    viaGateway.push(await call(plain, plainSession, 10 + i, 'skill_gen-00000_run_check_sh'));
    inSandbox.push(await call(sandboxed, sandboxSession, 10 + i, 'skill_gen-00000_run_check_sh'));
    const t = performance.now();
    await execa('bash', [script], { cwd: join(root, 'gen-00000') });
    direct.push(performance.now() - t);
  }
  await plain.stop();
  await sandboxed.stop();
  const [g50, g99, s50, s99, d50, d99] = [
    percentile(viaGateway, 50),
    percentile(viaGateway, 99),
    percentile(inSandbox, 50),
    percentile(inSandbox, 99),
    percentile(direct, 50),
    percentile(direct, 99),
  ];
  results.script_overhead = {
    gateway_p50: g50,
    gateway_p99: g99,
    sandbox_p50: s50,
    sandbox_p99: s99,
    direct_p50: d50,
    direct_p99: d99,
  };
  row(
    'scripts',
    'run tool p50 / p99 ms (trivial bash script, sandbox off)',
    `${fmt(g50, 1)} / ${fmt(g99, 1)}`,
    `direct execa ${fmt(d50, 1)} / ${fmt(d99, 1)}`,
    `+${fmt(g50 - d50, 1)} ms`,
    '<= +5 ms at p50',
    g50 - d50 <= 5,
  );
  const signed = (n: number) => `${n >= 0 ? '+' : '-'}${fmt(Math.abs(n), 1)}`;
  row(
    'scripts',
    'run tool p50 / p99 ms (same, in the bwrap sandbox)',
    `${fmt(s50, 1)} / ${fmt(s99, 1)}`,
    `sandbox off ${fmt(g50, 1)} / ${fmt(g99, 1)}`,
    `${signed(s50 - g50)} / ${signed(s99 - g99)} ms`,
    '<= +15 ms at p50',
    s50 - g50 <= 15,
  );
}

const started = performance.now();
const small = await generateSkills(10);
const hundred = await generateSkills(100);
const thousand = await generateSkills(1000);
const tenThousand = QUICK ? undefined : await generateSkills(10_000);
// 5 generated files + 5 references of 1-8 KiB: 10 served files per skill, plus SKILL.md.
const thousandByTen = await generateSkills(1000, 5);
try {
  await tokens([
    ['examples', EXAMPLES],
    ['100 skills', hundred],
    ['1,000 skills', thousand],
  ]);
  await upstreamTokenRows();
  results.upstream_overhead = await upstreamOverheadBench({
    row,
    fmt,
    note: (text) => notes.push(text),
    quick: QUICK,
  });
  await upstreamMemoryRows();
  await throughput(QUICK ? 2 : 6);
  results.replicas = await replicas({
    examples: EXAMPLES,
    seconds: QUICK ? 2 : 4,
    rounds: QUICK ? 1 : 3,
    sessions: 50,
    load,
    row,
    fmt,
    note: (text) => notes.push(text),
  });
  await eras(hundred, QUICK ? 2 : 6);
  await hotPathRows(hundred, QUICK ? 1 : 3);
  // 98 skills: the build before tracing caps first lists at 100 tools and its servers cannot lift the cap, so
  // both sides serve the same full catalog list (98 get_info tools + 2) only under it.
  const underCap = await generateSkills(98);
  await tracingRows(underCap, QUICK ? 1 : 3);
  await rm(underCap, { recursive: true, force: true });
  await scale(small, thousand, tenThousand, QUICK ? 300 : 2000);
  await catalogBuild(thousandByTen, QUICK ? 3 : 9);
  await skillsList(thousandByTen, QUICK ? 2 : 5);
  await operatorPage(thousandByTen, QUICK ? 4 : 10);
  results.oauth = await oauthBench({ root: hundred, seconds: QUICK ? 2 : 5, row, fmt });
  await scriptOverhead(small, QUICK ? 30 : 200);
  results.sandbox_runs = await sandboxRunsBench({ row, fmt, note: (text) => notes.push(text), quick: QUICK });
  results.search = await searchBench({ row, fmt, note: (text) => notes.push(text), quick: QUICK });
  results.search_flood = await searchFloodBench({ row, fmt, note: (text) => notes.push(text), quick: QUICK });
  results.sources = await sourcesBench({ row, fmt, note: (text) => notes.push(text), quick: QUICK });
  results.credentials = await credentialsBench({ row, fmt, note: (text) => notes.push(text), quick: QUICK });
  results.reload = await reloadStallBench({ row, fmt, note: (text) => notes.push(text), quick: QUICK });
} finally {
  for (const root of [small, hundred, thousand, tenThousand, thousandByTen])
    if (root !== undefined) await rm(root, { recursive: true, force: true });
}

const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memory_gib: Math.round(totalmem() / 2 ** 30),
  node: process.version,
};
const widths = (k: keyof (typeof rows)[number]) => Math.max(k.length, ...rows.map((r) => r[k].length));
const cols = ['group', 'metric', 'value', 'reference', 'ratio', 'target', 'verdict'] as const;
const line = (r: Record<(typeof cols)[number], string>) =>
  `| ${cols.map((c) => r[c].padEnd(widths(c))).join(' | ')} |`;
const header = Object.fromEntries(cols.map((c) => [c, c])) as Record<(typeof cols)[number], string>;
const table = [
  line(header),
  `|${cols.map((c) => '-'.repeat(widths(c) + 2)).join('|')}|`,
  ...rows.map(line),
].join('\n');
const seconds = (performance.now() - started) / 1000;
process.stdout.write(
  `\nskillgate benchmark — ${machine.cpu}, ${machine.cores} cores, ${machine.memory_gib} GiB, Node ${machine.node}${QUICK ? ' (QUICK)' : ''}\n\n${table}\n\n${notes.map((n) => `${n}\n`).join('')}ran in ${fmt(seconds)} s\n`,
);
await mkdir(join(REPO, 'bench-results'), { recursive: true });
await writeFile(
  join(REPO, 'bench-results', 'latest.json'),
  `${JSON.stringify({ timestamp: new Date().toISOString(), machine, quick: QUICK, seconds, rows, results }, null, 2)}\n`,
);
