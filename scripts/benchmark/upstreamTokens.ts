// Token economy of upstream MCP servers behind skills (docs/upstreams.md): the three reference servers are
// started over stdio and listed by a real client; their tools are then put in a catalog as auto upstreams,
// and the first tools/list of each era is compared with what a client pays listing the servers directly.
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createCatalog, type UpstreamSnapshot } from '@skillgate/skills';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { BenchContext } from './context.js';
import { TARGETS } from './targets.js';

/** What the rows print: tokens and tool counts of each list. */
export interface UpstreamTokenResult {
  readonly servers: readonly string[];
  /** Every tool of the three servers, as a client listing them directly gets them. */
  readonly direct: { readonly tools: number; readonly tokens: number };
  /** First tools/list of a 2025-era session (namespaced). */
  readonly legacy: { readonly tools: number; readonly tokens: number };
  /** The 2026-07-28 list (catalog mode). */
  readonly modern: { readonly tools: number; readonly tokens: number };
}

const gatewayRequire = createRequire(join(import.meta.dirname, '../../apps/gateway/package.json'));

async function listServer(
  id: string,
  args: string[],
  env: Record<string, string>,
): Promise<UpstreamSnapshot> {
  const client = new Client({ name: 'skillgate-bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args,
      env: { PATH: process.env.PATH ?? '', ...env },
      stderr: 'ignore',
    }),
  );
  try {
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const info = client.getServerVersion();
    const instructions = client.getInstructions();
    return {
      id,
      skill: 'auto',
      state: 'ready',
      tools,
      ...(instructions === undefined ? {} : { instructions }),
      ...(info === undefined ? {} : { serverInfo: info }),
    };
  } finally {
    await client.close();
  }
}

/** Lists the three reference servers and measures both eras' first lists against listing them directly. */
async function upstreamTokens(): Promise<UpstreamTokenResult> {
  const dir = await mkdtemp(join(tmpdir(), 'skillgate-bench-upstreams-'));
  try {
    const snapshots = await Promise.all([
      listServer(
        'everything',
        [gatewayRequire.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
        {},
      ),
      listServer('memory', [gatewayRequire.resolve('@modelcontextprotocol/server-memory/dist/index.js')], {
        MEMORY_FILE_PATH: join(dir, 'memory.jsonl'),
      }),
      listServer(
        'filesystem',
        [gatewayRequire.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), dir],
        {},
      ),
    ]);
    const catalog = createCatalog([], {
      maxNameLength: 48,
      asyncEnabled: false,
      maxTimeoutSeconds: 300,
      upstreams: snapshots,
    });
    const measure = (tools: readonly unknown[]) => ({
      tools: tools.length,
      tokens: encode(JSON.stringify(tools)).length,
    });
    return {
      servers: snapshots.map((s) => `${s.id} (${s.tools.length} tools)`),
      direct: measure(snapshots.flatMap((s) => s.tools)),
      legacy: measure(catalog.listTools({ disclosure: 'namespaced', unlocked: new Set() })),
      modern: measure(catalog.listTools({ disclosure: 'catalog', unlocked: new Set() })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The upstream-tokens phase: each era's first tools/list against listing the servers directly. */
export async function upstreamTokensPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const { servers, direct, legacy, modern } = await upstreamTokens();
  context.result('upstream_tokens', { servers, direct, legacy, modern });
  row(
    'upstreams',
    'initial tools/list tokens, 2025 era (namespaced)',
    fmt(legacy.tokens),
    `direct ${fmt(direct.tokens)}`,
    `${fmt((legacy.tokens / direct.tokens) * 100, 1)}%`,
    TARGETS.upstreamFirstList,
    legacy.tokens / direct.tokens,
  );
  row(
    'upstreams',
    'tools/list tools, 2026-07-28 (catalog)',
    `${modern.tools} (${fmt(modern.tokens)} tokens)`,
    `namespaced ${legacy.tools}`,
    `+${modern.tools - legacy.tools}`,
    TARGETS.upstreamModernTools,
    modern.tools - legacy.tools,
  );
  context.note(
    `Upstreams: ${servers.join(', ')} as auto skills; "direct" is every tool of the three servers (${direct.tools} tools) as a client listing them itself gets them.`,
  );
}
