// The eras phase of `pnpm bench`: the two protocol eras on the same catalog (100 skills): the 2026-07-28
// catalog list against the 2025 namespaced list, and against a bare Fastify route sending the same bytes.
import { createCatalog, type Disclosure, loadSkills } from '@skillgate/skills';
import autocannon from 'autocannon';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { BenchContext } from './context.js';
import { bestRound, sessionLoad } from './httpPhase.js';
import { openSessions, startServer } from './support.js';
import { TARGETS } from './targets.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

type Load = { readonly rps: number; readonly p50: number; readonly errors: number };

async function modernList(url: string, seconds: number): Promise<Load> {
  const result = await autocannon({
    url: `${url}/mcp`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
  });
  return { rps: result.requests.average, p50: result.latency.p50, errors: result.non2xx + result.errors };
}

/** Rows of the eras group. */
export async function erasPhase(context: BenchContext): Promise<void> {
  const { row, fmt, quick } = context;
  const seconds = quick ? 2 : 6;
  const root = await context.skills(100);
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
    TARGETS.modernListTokens,
    tokensOf('catalog') - (tokensOf('namespaced') + twoTools),
  );
  const gateway = await startServer('gateway', root);
  const ceilingServer = await startServer('fastify-spliced', root, 'catalog');
  let legacy: Load | undefined;
  let modern: Load | undefined;
  let ceiling: Load | undefined;
  try {
    const { ids } = await openSessions(gateway.url, 50);
    // Alternating rounds, the best of each kept (as in hotPaths.ts): the two eras are within a few per cent
    // of each other, less than one round's noise on 2 cores shared with the load generator.
    for (let round = 0; round < (quick ? 1 : 3); round++) {
      legacy = bestRound(
        legacy,
        await sessionLoad(gateway.url, ids, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, seconds),
      );
      modern = bestRound(modern, await modernList(gateway.url, seconds));
      ceiling = bestRound(ceiling, await modernList(ceilingServer.url, seconds));
    }
  } finally {
    await Promise.all([gateway.stop(), ceilingServer.stop()]);
  }
  if (legacy === undefined || modern === undefined || ceiling === undefined) return;
  context.result('eras', { legacy, modern, ceiling });
  row(
    'eras',
    'modern tools/list req/s vs legacy (100 skills)',
    fmt(modern.rps),
    `legacy ${fmt(legacy.rps)}`,
    `${fmt((modern.rps / legacy.rps) * 100, 0)}%`,
    TARGETS.modernVsLegacy,
    modern.rps / legacy.rps,
  );
  row(
    'eras',
    'modern tools/list req/s vs bare Fastify, id spliced',
    fmt(modern.rps),
    `bare Fastify ${fmt(ceiling.rps)}`,
    `${fmt((modern.rps / ceiling.rps) * 100, 0)}%`,
    TARGETS.modernVsCeiling,
    modern.rps / ceiling.rps,
  );
  if (modern.errors > 0)
    row('eras', 'modern tools/list errors', String(modern.errors), '', '', TARGETS.noErrors, modern.errors);
}
