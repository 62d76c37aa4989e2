import { parseConfig } from '@skillgate/config';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { EXAMPLES_ROOT, PROBE_ROOT, REPO_ROOT } from '../helpers/testGateway.js';
import { answerOf, MODERN, modernMeta } from './modernRequests.js';

// The direct 2026-07-28 path splices the request id into answers it keeps as bytes (src/direct/
// resultWriter.ts): ids a client chooses to break that splice — quotes, backslashes, U+2028, a lone
// surrogate, a 200 KB string, extreme and odd numbers spelled as the client likes, and ids the path must
// not take (floats, null, objects) — are answered with the SDK path's bytes and an exact Content-Length.

const META = JSON.stringify(modernMeta('hostile-ids'));

async function start(directAnswers: boolean): Promise<{ gateway: Gateway; url: URL }> {
  const config = parseConfig(
    { skills: { roots: [EXAMPLES_ROOT, PROBE_ROOT] }, scripts: { sandbox: 'off' } },
    { baseDir: REPO_ROOT },
  );
  const gateway = await createGateway(config, {
    logger: pino({ level: 'silent' }) as FastifyBaseLogger,
    directAnswers,
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url: new URL(config.server.path, base) };
}

// The id as the client spells it in the body (raw JSON text).
const IDS: readonly string[] = [
  JSON.stringify('a"b\\c\\"'),
  JSON.stringify('\u2028\u2029</script>'),
  '"\\ud800 lone"',
  '"\\udc00\\ud800"',
  JSON.stringify('✓ ïd 😀'),
  JSON.stringify('x'.repeat(200_000)),
  '-1',
  '-0',
  '1e3',
  '1.0',
  '9007199254740991',
  '-9007199254740991',
  '9007199254740993',
  '1.5',
  'null',
  '{"a":1}',
  '[1]',
  'true',
];

const REQUESTS = [
  { method: 'tools/list', params: '{}', name: undefined },
  {
    method: 'tools/call',
    params: '{"name":"skill_csv-tools_get_info","arguments":{}}',
    name: 'skill_csv-tools_get_info',
  },
  {
    method: 'resources/read',
    params: '{"uri":"skill://csv-tools/SKILL.md"}',
    name: 'skill://csv-tools/SKILL.md',
  },
] as const;

async function post(url: URL, request: (typeof REQUESTS)[number], id: string) {
  const params = `${request.params.slice(0, -1)}${request.params === '{}' ? '' : ','}"_meta":${META}}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': request.method,
      ...(request.name === undefined ? {} : { 'mcp-name': request.name }),
    },
    body: `{"jsonrpc":"2.0","id":${id},"method":"${request.method}","params":${params}}`,
  });
  return answerOf(response);
}

const directCount = async (url: URL) => {
  const text = await (await fetch(new URL('/metrics', url))).text();
  return Number(/skillgate_modern_requests_total\{path="direct"\} (\d+)/.exec(text)?.[1] ?? 0);
};
// The ids the direct path takes: strings and safe integers (however spelled); the rest are the SDK's.
const TAKEN = 12;

describe('hostile request ids on the direct 2026-07-28 path', () => {
  let direct: { gateway: Gateway; url: URL };
  let sdk: { gateway: Gateway; url: URL };
  beforeAll(async () => {
    [direct, sdk] = await Promise.all([start(true), start(false)]);
  });
  afterAll(async () => {
    await Promise.all([direct.gateway.close(), sdk.gateway.close()]);
  });

  it.each(REQUESTS)('answers $method with the SDK path bytes for every id', async (request) => {
    const before = await directCount(direct.url);
    for (const id of IDS) {
      const [mine, theirs] = [await post(direct.url, request, id), await post(sdk.url, request, id)];
      expect({ ...mine, length: null }, id.slice(0, 40)).toEqual({ ...theirs, length: null });
      if (mine.length !== null) expect(Number(mine.length), id.slice(0, 40)).toBe(mine.bytes);
    }
    expect(await directCount(direct.url)).toBe(before + TAKEN);
  });
});
