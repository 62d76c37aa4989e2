import { parseConfig } from '@skillgate/config';
import { waitFor } from '@skillgate/testkit';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { EXAMPLES_ROOT, PROBE_ROOT, REPO_ROOT } from '../helpers/testGateway.js';
import { MODERN, type ModernRequest, modernMeta, postModern } from './modernRequests.js';

// The direct path (src/direct/modernAnswers.ts) answers plain 2026-07-28 hot requests without the SDK's
// per-request server. It must write exactly what the SDK's path writes: two gateways on one catalog, one with
// the direct path and one without, get the same requests, and every answer is compared byte for byte.

const META = modernMeta('direct-test');
type Sent = ModernRequest;

const REQUESTS: ReadonlyArray<readonly [string, Sent]> = [
  ['tools/list', { method: 'tools/list', params: {} }],
  ['server/discover', { method: 'server/discover', params: {} }],
  ['skills/list', { method: 'skills/list', params: {} }],
  [
    'get_info',
    {
      method: 'tools/call',
      params: { name: 'skill_csv-tools_get_info', arguments: {} },
      name: 'skill_csv-tools_get_info',
    },
  ],
  [
    'get_info without arguments',
    {
      method: 'tools/call',
      params: { name: 'skill_text-stats_get_info' },
      name: 'skill_text-stats_get_info',
    },
  ],
  [
    'read_skill_file',
    {
      method: 'tools/call',
      params: { name: 'read_skill_file', arguments: { skill: 'text-stats', path: 'scripts/stats.py' } },
      name: 'read_skill_file',
    },
  ],
  [
    'read_skill_file of an image',
    {
      method: 'tools/call',
      params: { name: 'read_skill_file', arguments: { skill: 'brand-assets', path: 'assets/logo.png' } },
      name: 'read_skill_file',
    },
  ],
  [
    'read_skill_file of a missing file',
    {
      method: 'tools/call',
      params: { name: 'read_skill_file', arguments: { skill: 'text-stats', path: 'nope.md' } },
      name: 'read_skill_file',
    },
  ],
  [
    'read_skill_file with a wrong argument',
    {
      method: 'tools/call',
      params: { name: 'read_skill_file', arguments: { skill: 7 } },
      name: 'read_skill_file',
    },
  ],
  [
    'an unknown tool',
    {
      method: 'tools/call',
      params: { name: 'skill_nope_get_info', arguments: {} },
      name: 'skill_nope_get_info',
    },
  ],
  [
    'resources/read of text',
    {
      method: 'resources/read',
      params: { uri: 'skill://csv-tools/SKILL.md' },
      name: 'skill://csv-tools/SKILL.md',
    },
  ],
  [
    'resources/read of bytes',
    {
      method: 'resources/read',
      params: { uri: 'skill://brand-assets/assets/logo.png' },
      name: 'skill://brand-assets/assets/logo.png',
    },
  ],
  [
    'resources/read of a missing file',
    {
      method: 'resources/read',
      params: { uri: 'skill://csv-tools/missing.md' },
      name: 'skill://csv-tools/missing.md',
    },
  ],
  ...[
    'skill://csv-tools/references/../SKILL.md',
    'skill://csv-tools/../../text-stats/SKILL.md',
    'skill://csv-tools/scripts/CSV to JSON.py',
    'not a uri',
    'file:///etc/passwd',
  ].map(
    (uri) => [`resources/read of ${uri}`, { method: 'resources/read', params: { uri }, name: uri }] as const,
  ),
  ['skills/get', { method: 'skills/get', params: { uri: 'skill://log-triage/SKILL.md' } }],
  ['skills/get of a missing skill', { method: 'skills/get', params: { uri: 'skill://nope/SKILL.md' } }],
  ['prompts/get', { method: 'prompts/get', params: { name: 'csv-tools' }, name: 'csv-tools' }],
  ['prompts/get of a missing prompt', { method: 'prompts/get', params: { name: 'nope' }, name: 'nope' }],
];

async function start(
  directAnswers: boolean,
  disclosure = 'catalog',
): Promise<{ gateway: Gateway; url: URL }> {
  const config = parseConfig(
    {
      skills: {
        roots: [EXAMPLES_ROOT, PROBE_ROOT],
        prompts: true,
        async_enabled: true,
        modern_disclosure: disclosure,
      },
      scripts: { sandbox: 'off' },
    },
    { baseDir: REPO_ROOT },
  );
  const gateway = await createGateway(config, {
    logger: pino({ level: 'silent' }) as FastifyBaseLogger,
    directAnswers,
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url: new URL(config.server.path, base) };
}

// Status, content type and body: what the SDK's path and the direct path must write alike.
async function send(url: URL, sent: Sent, id: number | string) {
  const { status, type, body } = await postModern(url, sent, id, META);
  return { status, type, body };
}

const directCount = async (url: URL) => {
  const text = await (await fetch(new URL('/metrics', url))).text();
  return Number(/skillgate_modern_requests_total\{path="direct"\} (\d+)/.exec(text)?.[1] ?? 0);
};

describe('the direct 2026-07-28 path', () => {
  let direct: { gateway: Gateway; url: URL };
  let sdk: { gateway: Gateway; url: URL };
  beforeAll(async () => {
    [direct, sdk] = await Promise.all([start(true), start(false)]);
  });
  afterAll(async () => {
    await Promise.all([direct.gateway.close(), sdk.gateway.close()]);
  });

  it.each(REQUESTS)('answers %s exactly as the SDK path does', async (_label, sent) => {
    const before = await directCount(direct.url);
    const [mine, theirs] = [await send(direct.url, sent, 41), await send(sdk.url, sent, 41)];
    expect(mine).toEqual(theirs);
    // The same again with a string id: the id is spliced, never cached.
    const [mine2, theirs2] = [await send(direct.url, sent, 'x-9'), await send(sdk.url, sent, 'x-9')];
    expect(mine2).toEqual(theirs2);
    expect(mine2.body).toContain('"id":"x-9"');
    // And it really took the direct path (the other gateway never does).
    expect(await directCount(direct.url)).toBe(before + 2);
    expect(await directCount(sdk.url)).toBe(0);
  });

  it('leaves requests it does not own to the SDK path (a progressToken, a tools/list cursor, a mismatched name)', async () => {
    const before = await directCount(direct.url);
    const progress = await send(
      direct.url,
      {
        method: 'tools/call',
        params: { name: 'skill_csv-tools_get_info', arguments: {}, _meta: { ...META, progressToken: 1 } },
        name: 'skill_csv-tools_get_info',
      },
      1,
    );
    expect(progress.status).toBe(200);
    const cursor = await send(direct.url, { method: 'tools/list', params: { cursor: 'abc' } }, 2);
    expect(cursor.status).toBe(200);
    const mismatch = await send(
      direct.url,
      { method: 'tools/call', params: { name: 'skill_csv-tools_get_info' }, name: 'other' },
      3,
    );
    expect(mismatch.status).toBe(400);
    expect(await directCount(direct.url)).toBe(before);
  });

  it('an envelope the SDK refuses is refused exactly as the SDK path does, also once a valid one is remembered', async () => {
    const getInfo = (meta: Record<string, unknown>): Sent => ({
      method: 'tools/call',
      params: { name: 'skill_csv-tools_get_info', arguments: {}, _meta: meta },
      name: 'skill_csv-tools_get_info',
    });
    // Remembered: the next requests with this envelope skip the classifier (src/http/routeRequest.ts).
    expect((await send(direct.url, getInfo({}), 1)).status).toBe(200);
    const before = await directCount(direct.url);
    const refused = [
      { 'io.modelcontextprotocol/clientCapabilities': { sampling: 5 } },
      { 'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: 'yes' } } },
      { 'io.modelcontextprotocol/clientInfo': { name: 'direct-test', version: 1 } },
      { 'io.modelcontextprotocol/clientInfo': { name: 'direct-test', version: '1', title: 7 } },
      { 'io.modelcontextprotocol/clientCapabilities': [] },
    ];
    for (const [at, meta] of refused.entries()) {
      const [mine, theirs] = [
        await send(direct.url, getInfo(meta), at),
        await send(sdk.url, getInfo(meta), at),
      ];
      expect(mine).toEqual(theirs);
      expect(mine.status).toBe(400);
    }
    // A valid envelope of another client takes the direct path after its first classification.
    const other = { 'io.modelcontextprotocol/clientInfo': { name: 'other', version: '2', title: 'Other' } };
    const [mine, theirs] = [
      await send(direct.url, getInfo(other), 9),
      await send(sdk.url, getInfo(other), 9),
    ];
    expect(mine).toEqual(theirs);
    expect(mine.status).toBe(200);
    expect(await directCount(direct.url)).toBe(before + 1);
  });

  it('a client that hangs up before its answer stops the run it asked for, as on the SDK path', async () => {
    const running = async (url: URL) => {
      const text = await (await fetch(new URL('/metrics', url))).text();
      return Number(/skillgate_scripts_running (\d+)/.exec(text)?.[1] ?? -1);
    };
    for (const gateway of [direct, sdk]) {
      const hangUp = new AbortController();
      const pending = fetch(gateway.url, {
        method: 'POST',
        signal: hangUp.signal,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': 'tools/call',
          'mcp-name': 'run_skill_script',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: {
            name: 'run_skill_script',
            arguments: { skill: 'gateway-probe', path: 'scripts/hang.sh' },
            _meta: META,
          },
        }),
      });
      await waitFor(async () => (await running(gateway.url)) === 1);
      hangUp.abort();
      await expect(pending).rejects.toThrow();
      // hang.sh ignores SIGTERM and sleeps 600 s: only the call's abort (a kill of its process group) ends it.
      await waitFor(async () => (await running(gateway.url)) === 0, { timeoutMs: 15_000 });
    }
  });
});

const tool = (name: string, args?: Record<string, unknown>): Sent => ({
  method: 'tools/call',
  params: args === undefined ? { name } : { name, arguments: args },
  name,
});

/** The search surface (search_skills, load_skill): every answer kind, ranked results and errors included. */
const SEARCH_REQUESTS: ReadonlyArray<readonly [string, Sent]> = [
  ['tools/list', { method: 'tools/list', params: {} }],
  ['server/discover', { method: 'server/discover', params: {} }],
  ['search_skills', tool('search_skills', { query: 'count words in a text' })],
  ['search_skills with a limit', tool('search_skills', { query: 'csv columns', limit: 2 })],
  ['search_skills listing every skill', tool('search_skills', { query: '*', limit: 3 })],
  ['search_skills matching nothing', tool('search_skills', { query: 'zzqxv' })],
  ['search_skills with an empty query', tool('search_skills', { query: '' })],
  ['search_skills with a bad cursor', tool('search_skills', { query: 'csv', cursor: 'bm9wZQ' })],
  ['load_skill', tool('load_skill', { name: 'text-stats' })],
  ['load_skill of an unknown skill', tool('load_skill', { name: 'nope' })],
];

describe('the direct 2026-07-28 path in search mode', () => {
  let direct: { gateway: Gateway; url: URL };
  let sdk: { gateway: Gateway; url: URL };
  beforeAll(async () => {
    [direct, sdk] = await Promise.all([start(true, 'search'), start(false, 'search')]);
  });
  afterAll(async () => {
    await Promise.all([direct.gateway.close(), sdk.gateway.close()]);
  });

  it.each(SEARCH_REQUESTS)('answers %s exactly as the SDK path does', async (_label, sent) => {
    const [mine, theirs] = [await send(direct.url, sent, 41), await send(sdk.url, sent, 41)];
    expect(mine).toEqual(theirs);
    const [mine2, theirs2] = [await send(direct.url, sent, 'x-9'), await send(sdk.url, sent, 'x-9')];
    expect(mine2).toEqual(theirs2);
    expect(mine2.body).toContain('"id":"x-9"');
  });
});
