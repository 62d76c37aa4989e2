import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseConfig } from '@skillgate/config';
import { waitFor } from '@skillgate/testkit';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { EXAMPLES_ROOT, PROBE_ROOT, REPO_ROOT } from '../helpers/testGateway.js';

// A 2025-era session's direct path (src/direct/sessionAnswers.ts) answers plain tools/list, tools/call
// and resources/read with the session's own handlers, without the SDK Server's per-message work. It must
// write exactly what the Server writes: two gateways on one catalog, one with the direct path and one
// without, each get one session and the same requests in the same order, and every answer (status, content
// type, body — SSE included) is compared byte for byte.

const REVISION = '2025-11-25';

interface Sent {
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

const call = (name: string, args?: Record<string, unknown>): Sent => ({
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
});
const read = (uri: string): Sent => ({ method: 'resources/read', params: { uri } });

/** In order: what a session sees before and after an unlock, hits and misses, wrong arguments, files. */
const REQUESTS: ReadonlyArray<readonly [string, Sent]> = [
  ['tools/list before any unlock', { method: 'tools/list' }],
  ['tools/list with empty params', { method: 'tools/list', params: {} }],
  ['a locked read tool', call('skill_text-stats_read_stats_py', {})],
  ['get_info (list_changed on its stream)', call('skill_text-stats_get_info', {})],
  ['get_info without arguments', call('skill_csv-tools_get_info')],
  ['tools/list after unlocks', { method: 'tools/list' }],
  ['a read tool', call('skill_text-stats_read_stats_py', {})],
  ['a read tool of an image', call('skill_brand-assets_read_logo_png', {})],
  ['a run tool with a wrong argument', call('skill_text-stats_run_stats_py', { args: 'not a list' })],
  ['an unknown tool', call('skill_nope_get_info', {})],
  ['resources/read of text', read('skill://csv-tools/SKILL.md')],
  ['resources/read of bytes', read('skill://brand-assets/assets/logo.png')],
  ['resources/read of a missing file', read('skill://csv-tools/missing.md')],
  ['resources/read through dot segments', read('skill://csv-tools/references/../SKILL.md')],
  ['resources/read of an escape', read('skill://csv-tools/../../text-stats/SKILL.md')],
  ['resources/read of a non-URI', read('not a uri')],
  ['resources/read of a file URI', read('file:///etc/passwd')],
];

interface Side {
  readonly gateway: Gateway;
  readonly url: URL;
  session: string;
}

async function start(directAnswers: boolean, disclosure = 'namespaced'): Promise<Side> {
  const config = parseConfig(
    {
      skills: { roots: [EXAMPLES_ROOT, PROBE_ROOT], async_enabled: true, disclosure },
      // Raw HTTP here does not re-list after list_changed: no get_info result is held for it.
      sessions: { relist_wait_ms: 0 },
      scripts: { sandbox: 'off' },
    },
    { baseDir: REPO_ROOT },
  );
  const gateway = await createGateway(config, {
    logger: pino({ level: 'silent' }) as FastifyBaseLogger,
    directAnswers,
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url: new URL(config.server.path, base), session: '' };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function post(side: Side, body: object) {
  const response = await fetch(side.url, {
    method: 'POST',
    headers: {
      ...HEADERS,
      ...(side.session === '' ? {} : { 'mcp-session-id': side.session, 'mcp-protocol-version': REVISION }),
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    session: response.headers.get('mcp-session-id'),
    body: await response.text(),
  };
}

async function openSession(side: Side): Promise<void> {
  const init = await post(side, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: REVISION,
      capabilities: {},
      clientInfo: { name: 'direct-test', version: '1' },
    },
  });
  side.session = init.session ?? '';
  await post(side, { jsonrpc: '2.0', method: 'notifications/initialized' });
}

const requestCount = async (side: Side, path: 'direct' | 'sdk') => {
  const text = await (await fetch(new URL('/metrics', side.url))).text();
  const pattern = new RegExp(`skillgate_session_requests_total\\{path="${path}"\\} (\\d+)`);
  return Number(pattern.exec(text)?.[1] ?? 0);
};

/** Sends `sent` to both gateways with a number id and a string id; the answers must be byte-equal. */
async function expectSameAnswers(direct: Side, sdk: Side, sent: Sent): Promise<void> {
  const before = await requestCount(direct, 'direct');
  const body = (id: number | string) => ({ jsonrpc: '2.0', id, ...sent });
  const [mine, theirs] = [await post(direct, body(41)), await post(sdk, body(41))];
  expect({ ...mine, session: null }).toEqual({ ...theirs, session: null });
  // A string id too: nothing is kept per id.
  const [mine2, theirs2] = [await post(direct, body('x-9')), await post(sdk, body('x-9'))];
  expect({ ...mine2, session: null }).toEqual({ ...theirs2, session: null });
  expect(mine2.body).toContain('"id":"x-9"');
  // Both took the direct path on one gateway; the other gateway never counts one.
  expect(await requestCount(direct, 'direct')).toBe(before + 2);
  expect(await requestCount(sdk, 'direct')).toBe(0);
}

describe("a 2025-era session's direct path", () => {
  let direct: Side;
  let sdk: Side;
  beforeAll(async () => {
    [direct, sdk] = await Promise.all([start(true), start(false)]);
    await openSession(direct);
    await openSession(sdk);
  });
  afterAll(async () => {
    await Promise.all([direct.gateway.close(), sdk.gateway.close()]);
  });

  it.each(REQUESTS)('answers %s exactly as the SDK Server does', async (_label, sent) => {
    await expectSameAnswers(direct, sdk, sent);
  });

  it('leaves requests it does not own to the SDK Server (a progressToken, unknown params, other methods)', async () => {
    const before = await requestCount(direct, 'direct');
    const sdkBefore = await requestCount(direct, 'sdk');
    const owned = [
      { method: 'tools/call', params: { name: 'skill_csv-tools_get_info', _meta: { progressToken: 1 } } },
      { method: 'tools/list', params: { cursor: 'abc' } },
      { method: 'resources/read', params: { uri: 'skill://csv-tools/SKILL.md', extra: 1 } },
      { method: 'ping' },
    ];
    for (const [i, sent] of owned.entries()) {
      const [mine, theirs] = [
        await post(direct, { jsonrpc: '2.0', id: 100 + i, ...sent }),
        await post(sdk, { jsonrpc: '2.0', id: 100 + i, ...sent }),
      ];
      expect({ ...mine, session: null }).toEqual({ ...theirs, session: null });
    }
    expect(await requestCount(direct, 'direct')).toBe(before);
    expect(await requestCount(direct, 'sdk')).toBe(sdkBefore + owned.length);
  });

  it("a client's cancellation stops a run on the direct path, and no answer follows it", async () => {
    const client = new Client({ name: 'cancel-test', version: '1' }, { capabilities: {} });
    await client.connect(new StreamableHTTPClientTransport(direct.url));
    await client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const running = async () => {
      const text = await (await fetch(new URL('/metrics', direct.url))).text();
      return Number(/skillgate_scripts_running (\d+)/.exec(text)?.[1] ?? -1);
    };
    const before = await requestCount(direct, 'direct');
    const abort = new AbortController();
    const pending = client.callTool({ name: 'skill_gateway-probe_run_hang_sh', arguments: {} }, undefined, {
      signal: abort.signal,
      timeout: 60_000,
    });
    await waitFor(async () => (await running()) === 1);
    expect(await requestCount(direct, 'direct')).toBe(before + 1);
    abort.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    // The run (which ignores SIGTERM) is stopped: the cancellation reached the handler's signal.
    await waitFor(async () => (await running()) === 0, { timeoutMs: 15_000 });
    // A cancellation without params names nothing and breaks nothing.
    const bare = await fetch(direct.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': direct.session, 'mcp-protocol-version': REVISION },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled' }),
    });
    expect(bare.status).toBe(202);
    // The session still answers.
    const after = await client.callTool({ name: 'skill_csv-tools_get_info', arguments: {} });
    expect(after.isError).not.toBe(true);
    await client.close();
  });
});

/** The search surface (search_skills, load_skill): every answer kind, ranked results and errors included. */
const SEARCH_REQUESTS: ReadonlyArray<readonly [string, Sent]> = [
  ['tools/list', { method: 'tools/list' }],
  ['search_skills', call('search_skills', { query: 'count words in a text' })],
  ['search_skills with a limit', call('search_skills', { query: 'csv columns', limit: 2 })],
  ['search_skills listing every skill', call('search_skills', { query: '*', limit: 3 })],
  ['search_skills matching nothing', call('search_skills', { query: 'zzqxv' })],
  ['search_skills with a limit over 20', call('search_skills', { query: 'csv', limit: 21 })],
  ['search_skills with a bad cursor', call('search_skills', { query: 'csv', cursor: 'bm9wZQ' })],
  ['load_skill', call('load_skill', { name: 'text-stats' })],
  ['load_skill of an unknown skill', call('load_skill', { name: 'nope' })],
  ['a get_info name that is not listed', call('skill_csv-tools_get_info', {})],
];

describe("a 2025-era session's direct path in search mode", () => {
  let direct: Side;
  let sdk: Side;
  beforeAll(async () => {
    [direct, sdk] = await Promise.all([start(true, 'search'), start(false, 'search')]);
    await openSession(direct);
    await openSession(sdk);
  });
  afterAll(async () => {
    await Promise.all([direct.gateway.close(), sdk.gateway.close()]);
  });

  it.each(SEARCH_REQUESTS)('answers %s exactly as the SDK Server does', async (_label, sent) => {
    await expectSameAnswers(direct, sdk, sent);
  });
});
