import { parseConfig } from '@skillgate/config';
import { createTempSkills, type TempSkills } from '@skillgate/testkit';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';

// Long answers that the 2026-07-28 direct path keeps (lists, a get_info, a prompt) are kept
// as bytes and written in pieces (src/direct/resultWriter.ts, keptResult): the same bytes and Content-Length
// as the SDK's path, also with multi-byte text in the result and in the id. Short ones are covered by
// modernDirect.test.ts.

const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'kept-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const SKILLS = 60;
const name = (i: number) => `long-${String(i).padStart(2, '0')}`;
// Multi-byte characters: the byte length of a kept answer is not its string length.
const DESCRIPTION = `Löng déscriptiön ✓ of a skill that lists many things, ${'wörds and more wörds, '.repeat(8)}`;
const BODY = `# Long\n\n${'A line of the skill body, with ünïcødé ✓ in it.\n'.repeat(600)}`;

interface Sent {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly name?: string;
}

const REQUESTS: ReadonlyArray<readonly [string, Sent]> = [
  ['tools/list', { method: 'tools/list', params: {} }],
  ['skills/list', { method: 'skills/list', params: {} }],
  [
    'a long get_info',
    {
      method: 'tools/call',
      params: { name: `skill_${name(0)}_get_info`, arguments: {} },
      name: `skill_${name(0)}_get_info`,
    },
  ],
  ['a long prompts/get', { method: 'prompts/get', params: { name: name(0) }, name: name(0) }],
];

async function start(root: string, directAnswers: boolean): Promise<{ gateway: Gateway; url: URL }> {
  const config = parseConfig(
    { skills: { roots: [root], prompts: true }, scripts: { sandbox: 'off' }, tools: { max_listed: 1000 } },
    { baseDir: root },
  );
  const gateway = await createGateway(config, {
    logger: pino({ level: 'silent' }) as FastifyBaseLogger,
    directAnswers,
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url: new URL(config.server.path, base) };
}

async function send(url: URL, sent: Sent, id: number | string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': sent.method,
      ...(sent.name === undefined ? {} : { 'mcp-name': sent.name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: sent.method,
      params: { ...sent.params, _meta: META },
    }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    length: response.headers.get('content-length'),
    bytes: bytes.length,
    body: bytes.toString('utf8'),
  };
}

describe('long answers of the direct 2026-07-28 path, kept as bytes', () => {
  let skills: TempSkills;
  let direct: { gateway: Gateway; url: URL };
  let sdk: { gateway: Gateway; url: URL };
  beforeAll(async () => {
    const files = (i: number): Readonly<Record<string, string>> =>
      i === 0 ? { 'SKILL.md': `---\nname: ${name(i)}\ndescription: ${DESCRIPTION}\n---\n${BODY}` } : {};
    skills = await createTempSkills(
      Object.fromEntries(
        Array.from({ length: SKILLS }, (_, i) => [name(i), { description: DESCRIPTION, files: files(i) }]),
      ),
    );
    [direct, sdk] = await Promise.all([start(skills.root, true), start(skills.root, false)]);
  });
  afterAll(async () => {
    await Promise.all([direct.gateway.close(), sdk.gateway.close()]);
    await skills.close();
  });

  it.each(REQUESTS)('writes %s with the bytes and length the SDK path writes', async (_label, sent) => {
    for (const id of [41, 'ïd-✓', 42]) {
      const [mine, theirs] = [await send(direct.url, sent, id), await send(sdk.url, sent, id)];
      // The SDK's path frames its answer in chunks; the direct path's has a Content-Length, and it is exact.
      expect({ ...mine, length: null }).toEqual(theirs);
      expect(mine.status).toBe(200);
      expect(mine.body).toContain(`"id":${JSON.stringify(id)}}`);
      expect(Number(mine.length)).toBe(mine.bytes);
    }
  });

  it('keeps the answers long enough to be written in pieces', async () => {
    for (const [, sent] of REQUESTS) {
      const answer = await send(direct.url, sent, 1);
      // keptResult's bound is 8,192 characters: each of these answers is past it.
      expect(answer.body.length, sent.method).toBeGreaterThan(8192);
    }
  });
});
