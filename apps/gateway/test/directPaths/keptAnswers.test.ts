import { parseConfig } from '@skillgate/config';
import { createTempSkills, type TempSkills } from '@skillgate/testkit';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { answerOf, type ModernRequest, modernMeta, postModern } from './modernRequests.js';

// Long answers that the 2026-07-28 direct path keeps (lists, a get_info, a prompt) are kept
// as bytes and written in pieces (src/direct/resultWriter.ts, keptResult): the same bytes and Content-Length
// as the SDK's path, also with multi-byte text in the result and in the id. Short ones are covered by
// modernDirect.test.ts.

const META = modernMeta('kept-test');
const SKILLS = 60;
const name = (i: number) => `long-${String(i).padStart(2, '0')}`;
// Multi-byte characters: the byte length of a kept answer is not its string length.
const DESCRIPTION = `Löng déscriptiön ✓ of a skill that lists many things, ${'wörds and more wörds, '.repeat(8)}`;
const LINE = 'A line of the skill body, with ünïcødé ✓ in it.\n';
const BODY = `# Long\n\n${LINE.repeat(600)}`;
/** long-01's body: past max_response_bytes (65,536) of the 2025-era sessions below. */
const TOO_LONG = `# Too long\n\n${LINE.repeat(1600)}`;

/** The skills' files: long-00 with a long body, long-01 with one too long for a 2025-era answer. */
const filesOf = (i: number): Readonly<Record<string, string>> =>
  i < 2
    ? { 'SKILL.md': `---\nname: ${name(i)}\ndescription: ${DESCRIPTION}\n---\n${i === 0 ? BODY : TOO_LONG}` }
    : {};
const SKILL_SET = Object.fromEntries(
  Array.from({ length: SKILLS }, (_, i) => [name(i), { description: DESCRIPTION, files: filesOf(i) }]),
);

const REQUESTS: ReadonlyArray<readonly [string, ModernRequest]> = [
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
    {
      skills: { roots: [root], prompts: true },
      scripts: { sandbox: 'off' },
      tools: { max_listed: 1000 },
      server: { max_response_bytes: 65_536 },
      // Raw HTTP here does not re-list after list_changed: no get_info result is held for it.
      sessions: { relist_wait_ms: 0 },
    },
    { baseDir: root },
  );
  const gateway = await createGateway(config, {
    logger: pino({ level: 'silent' }) as FastifyBaseLogger,
    directAnswers,
  });
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url: new URL(config.server.path, base) };
}

const send = (url: URL, sent: ModernRequest, id: number | string) => postModern(url, sent, id, META);

describe('long answers of the direct 2026-07-28 path, kept as bytes', () => {
  let skills: TempSkills;
  let direct: { gateway: Gateway; url: URL };
  let sdk: { gateway: Gateway; url: URL };
  beforeAll(async () => {
    skills = await createTempSkills(SKILL_SET);
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

describe("long answers of a 2025-era session's direct path, kept as bytes", () => {
  let skills: TempSkills;
  const sides: { gateway: Gateway; url: URL; session: string }[] = [];
  const post = async (side: { url: URL; session: string }, body: object) => {
    const response = await fetch(side.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(side.session === ''
          ? {}
          : { 'mcp-session-id': side.session, 'mcp-protocol-version': '2025-11-25' }),
      },
      body: JSON.stringify(body),
    });
    return { ...(await answerOf(response)), session: response.headers.get('mcp-session-id') };
  };
  beforeAll(async () => {
    skills = await createTempSkills(SKILL_SET);
    for (const directAnswers of [true, false]) {
      const { gateway, url } = await start(skills.root, directAnswers);
      const side = { gateway, url, session: '' };
      const init = await post(side, {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'kept-test', version: '1' },
        },
      });
      side.session = init.session ?? '';
      await post(side, { jsonrpc: '2.0', method: 'notifications/initialized' });
      sides.push(side);
    }
  });
  afterAll(async () => {
    await Promise.all(sides.map((side) => side.gateway.close()));
    await skills.close();
  });

  it.each([
    [
      'a long get_info',
      { method: 'tools/call', params: { name: `skill_${name(0)}_get_info`, arguments: {} } },
    ],
    ['tools/list after the unlock', { method: 'tools/list', params: {} }],
    [
      'a get_info past max_response_bytes',
      { method: 'tools/call', params: { name: `skill_${name(1)}_get_info`, arguments: {} } },
    ],
  ])('writes %s with the bytes and length the SDK Server writes', async (_label, sent) => {
    const [direct, sdk] = sides;
    if (direct === undefined || sdk === undefined) throw new Error('no gateways');
    for (const id of [41, 'ïd-✓', 42]) {
      const [mine, theirs] = [
        await post(direct, { jsonrpc: '2.0', id, ...sent }),
        await post(sdk, { jsonrpc: '2.0', id, ...sent }),
      ];
      expect({ ...mine, session: null }).toEqual({ ...theirs, session: null });
      // An unlock's answer follows its list_changed on a stream; every other is one JSON answer with a length.
      if (mine.length !== null) expect(Number(mine.length)).toBe(mine.bytes);
      expect(mine.body).toContain(`"id":${JSON.stringify(id)}`);
    }
  });
});
