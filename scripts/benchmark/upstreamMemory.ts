// Memory of upstream MCP servers behind skills (docs/upstreams.md): what one upstream connection costs the
// gateway, and what a session that unlocked an upstream's skill costs — which must not grow with the number
// of the upstream's tools (the catalog holds them once; a session holds only the names it unlocked).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHttpUpstream, TEST_UPSTREAM } from '@skillgate/testkit';
import type { BenchContext } from './context.js';
import { openSessions, rpc, serverMemory, startServer } from './support.js';
import { TARGETS } from './targets.js';

/** What the memory rows print. */
export interface UpstreamMemoryResult {
  /** Heap (plus external) the gateway holds per connected HTTP upstream, in bytes. */
  readonly heapPerUpstream: number;
  /** Resident set size per connected HTTP upstream, in bytes. */
  readonly rssPerUpstream: number;
  readonly upstreams: number;
  /** Heap per session that unlocked the upstream's skill and listed its tools, by the upstream's tool count. */
  readonly perSession: { readonly fewTools: number; readonly manyTools: number };
  readonly toolCounts: { readonly few: number; readonly many: number };
  readonly sessions: number;
}

/** heapUsed + external and RSS of a bench server after a forced GC. */
async function memoryOf(url: string): Promise<{ heap: number; rss: number }> {
  const m = (await (await fetch(`${url}/__bench/mem`)).json()) as {
    heapUsed: number;
    external: number;
    rss: number;
  };
  return { heap: m.heapUsed + m.external, rss: m.rss };
}

/** Heap per session of `sessions` sessions that each unlocked the upstream's skill and re-listed. */
async function heapPerSession(root: string, tools: number, sessions: number): Promise<number> {
  // Every tool of the test upstream, plus `tools` extra ones, behind one auto skill.
  const extra = Math.max(0, tools - 13);
  const gateway = await startServer('gateway', root, 'namespaced', 'off', {
    BENCH_UPSTREAMS: JSON.stringify([
      // Past the default listing bound (max_tools 256): this row measures sessions over 1,000 tools.
      {
        id: 'wide',
        command: [process.execPath, TEST_UPSTREAM, '--extra-tools', String(extra)],
        max_tools: 4096,
      },
    ]),
  });
  try {
    // Start-up waits for the upstream's first connection, so its skill is there from the first list.
    const probe = await openSessions(gateway.url, 1, 1);
    const first = await rpc(gateway.url, probe.ids[0] ?? '', { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    if (!JSON.stringify(first).includes('skill_wide_get_info'))
      throw new Error('the upstream is not connected');
    // get_info holds its result until the session re-lists (at most sessions.relist_wait_ms, 1 s); this
    // client re-lists after the answer, so sessions go 50 at a time.
    const unlockAndList = async (id: string) => {
      const info = { name: 'skill_wide_get_info', arguments: {} };
      await rpc(gateway.url, id, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: info });
      const listed = await rpc(gateway.url, id, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
      const count = ((listed.result as { tools?: unknown[] } | undefined)?.tools ?? []).length;
      if (count < tools) throw new Error(`a session listed ${count} tools, expected at least ${tools}`);
    };
    // The probe session unlocks and lists first: what is rendered once per catalog (the unlocked list's JSON
    // and bytes) is then made before the measure, and the figure is what each further session costs.
    await unlockAndList(probe.ids[0] ?? '');
    const before = await serverMemory(gateway.url);
    const { ids } = await openSessions(gateway.url, sessions);
    for (let i = 0; i < ids.length; i += 50) await Promise.all(ids.slice(i, i + 50).map(unlockAndList));
    return ((await serverMemory(gateway.url)) - before) / sessions;
  } finally {
    await gateway.stop();
  }
}

/** Runs the memory measurements. */
async function upstreamMemory(options: { readonly sessions: number }): Promise<UpstreamMemoryResult> {
  const empty = await mkdtemp(join(tmpdir(), 'skillgate-bench-upstream-memory-'));
  const upstream = await startHttpUpstream();
  try {
    // One gateway with no upstream, one with many (all to the same server), measured alike.
    const count = 20;
    const none = await startServer('gateway', empty, 'eager', 'off', { BENCH_UPSTREAMS: '[]' });
    const many = await startServer('gateway', empty, 'eager', 'off', {
      BENCH_UPSTREAMS: JSON.stringify(
        Array.from({ length: count }, (_, i) => ({ id: `u${i}`, url: upstream.url, tools: ['echo'] })),
      ),
    });
    let heapPerUpstream: number;
    let rssPerUpstream: number;
    try {
      const [a, b] = [await memoryOf(none.url), await memoryOf(many.url)];
      heapPerUpstream = (b.heap - a.heap) / count;
      rssPerUpstream = (b.rss - a.rss) / count;
    } finally {
      await none.stop();
      await many.stop();
    }
    const toolCounts = { few: 13, many: 1000 };
    const fewTools = await heapPerSession(empty, toolCounts.few, options.sessions);
    const manyTools = await heapPerSession(empty, toolCounts.many, options.sessions);
    return {
      heapPerUpstream,
      rssPerUpstream,
      upstreams: count,
      perSession: { fewTools, manyTools },
      toolCounts,
      sessions: options.sessions,
    };
  } finally {
    upstream.stop();
    await rm(empty, { recursive: true, force: true });
  }
}

/** The upstream-memory phase: memory per connection, and per session by the upstream's tool count. */
export async function upstreamMemoryPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const result = await upstreamMemory({ sessions: context.quick ? 100 : 400 });
  context.result('upstream_memory', result);
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
    TARGETS.upstreamSessionHeap,
    growth,
  );
  context.note(
    `Upstream memory: heap is heapUsed + external after a forced GC; per session, ${result.sessions} 2025-era sessions each unlocked the upstream's auto skill (get_info) and listed its tools.`,
  );
}
