import { parseConfig } from '@skillgate/config';
import { TEST_UPSTREAM, waitFor } from '@skillgate/testkit';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { EXAMPLES_ROOT, PROBE_ROOT, REPO_ROOT } from '../helpers/testGateway.js';

// Every kind of tool call, on both eras' direct paths, against the SDK's own path: a successful script run,
// an async job started, polled and cancelled, a call of an upstream MCP tool (namespaced and through the
// call_skill_tool dispatcher), the catalog dispatchers and the search tools. Two gateways with one config, one
// with the direct paths and one without, get the same calls in the same order; every answer is compared byte
// for byte once what differs by nature is masked (job ids, which are random, and measured milliseconds).

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'kinds-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Side {
  readonly gateway: Gateway;
  readonly url: URL;
  readonly era: 'legacy' | 'modern';
  session: string;
  /** The last job id this side's gateway started (ids are random: each side polls its own). */
  job: string;
}

async function start(directAnswers: boolean, era: Side['era'], disclosure: string): Promise<Side> {
  const config = parseConfig(
    {
      skills: {
        roots: [EXAMPLES_ROOT, PROBE_ROOT],
        async_enabled: true,
        ...(era === 'legacy' ? { disclosure } : { modern_disclosure: disclosure }),
      },
      upstreams: [{ id: 'local', command: [process.execPath, TEST_UPSTREAM, '--stdio'], tools: ['echo'] }],
      sessions: { relist_wait_ms: 0 },
      scripts: { sandbox: 'off' },
    },
    { baseDir: REPO_ROOT },
  );
  const gateway = await createGateway(config, {
    logger: pino({ level: 'silent' }) as FastifyBaseLogger,
    directAnswers,
  });
  await gateway.upstreamsSettled;
  const base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { gateway, url: new URL(config.server.path, base), era, session: '', job: '' };
}

async function post(side: Side, id: number, method: string, params: Record<string, unknown>) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (side.era === 'modern') {
    headers['mcp-protocol-version'] = MODERN;
    headers['mcp-method'] = method;
    if (typeof params.name === 'string') headers['mcp-name'] = params.name;
  } else if (side.session !== '') {
    headers['mcp-session-id'] = side.session;
    headers['mcp-protocol-version'] = LEGACY;
  }
  const body = side.era === 'modern' ? { ...params, _meta: MODERN_META } : params;
  const response = await fetch(side.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: body }),
  });
  const text = await response.text();
  if (side.era === 'legacy' && side.session === '')
    side.session = response.headers.get('mcp-session-id') ?? '';
  side.job = /"job_id":"([A-Za-z0-9_-]{22})"/.exec(text)?.[1] ?? side.job;
  return { status: response.status, type: response.headers.get('content-type'), body: text };
}

/** What differs between two gateways by nature: the side's random job id and measured times. */
const masked = (side: Side, answer: { status: number; type: string | null; body: string }) => ({
  ...answer,
  body: (side.job === '' ? answer.body : answer.body.replaceAll(side.job, '<job>'))
    .replace(/\b\d+ ms\b/g, '<n> ms')
    .replace(/duration_ms(\\*"): ?\d+/g, 'duration_ms$1:<n>'),
});

const directCount = async (side: Side): Promise<number> => {
  const text = await (await fetch(new URL('/metrics', side.url))).text();
  const series =
    side.era === 'modern' ? 'skillgate_modern_requests_total' : 'skillgate_session_requests_total';
  return Number(new RegExp(`${series}\\{path="direct"\\} (\\d+)`).exec(text)?.[1] ?? 0);
};

/** One call, by name and arguments; `job` arguments are filled with each side's own job id. */
type Call = readonly [label: string, name: string, args: Record<string, unknown>];

const callOn = (side: Side, id: number, [, name, args]: Call) =>
  post(side, id, 'tools/call', {
    name,
    arguments: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, v === '<job>' ? side.job : v])),
  });

const NAMESPACED: readonly Call[] = [
  ['get_info of a skill with scripts', 'skill_text-stats_get_info', {}],
  ['a successful script run', 'skill_text-stats_run_stats_py', { stdin: 'one two three\n' }],
  ['a script run that fails', 'skill_gateway-probe_run_fail_sh', {}],
  ['an async run', 'skill_text-stats_run_async_stats_py', { stdin: 'one two\n' }],
  ['get_info of the upstream skill', 'skill_local_get_info', {}],
  ['an upstream tool call', 'skill_local_call_echo', { text: 'hello upstream' }],
  ['an upstream tool call with wrong arguments', 'skill_local_call_echo', { text: 42 }],
  ['job status of an unknown job', 'skill_get_async_status', { job_id: 'AAAAAAAAAAAAAAAAAAAAAA' }],
];

const CATALOG: readonly Call[] = [
  ['run_skill_script', 'run_skill_script', { skill: 'text-stats', path: 'scripts/stats.py', stdin: 'a b\n' }],
  [
    'run_skill_script async',
    'run_skill_script',
    { skill: 'text-stats', path: 'scripts/stats.py', async: true },
  ],
  ['read_skill_file', 'read_skill_file', { skill: 'csv-tools', path: 'SKILL.md' }],
  [
    'call_skill_tool',
    'call_skill_tool',
    { skill: 'local', tool: 'echo', arguments: { text: 'via dispatcher' } },
  ],
  ['call_skill_tool of an unknown tool', 'call_skill_tool', { skill: 'local', tool: 'nope', arguments: {} }],
  ['get_info naming the dispatcher calls', 'skill_local_get_info', {}],
];

const SEARCH: readonly Call[] = [
  ['search_skills', 'search_skills', { query: 'echo text back' }],
  ['load_skill of the upstream skill', 'load_skill', { name: 'local' }],
  [
    'call_skill_tool in search mode',
    'call_skill_tool',
    { skill: 'local', tool: 'echo', arguments: { text: 'x' } },
  ],
];

for (const era of ['legacy', 'modern'] as const) {
  for (const [disclosure, calls] of [
    ...(era === 'legacy' ? ([['namespaced', NAMESPACED]] as const) : []),
    ['catalog', CATALOG],
    ['search', SEARCH],
  ] as const) {
    describe(`every tool kind on the ${era} direct path (${disclosure})`, () => {
      let direct: Side;
      let sdk: Side;
      let nextId = 100;
      beforeAll(async () => {
        [direct, sdk] = await Promise.all([start(true, era, disclosure), start(false, era, disclosure)]);
        if (era === 'legacy') {
          for (const side of [direct, sdk]) {
            await post(side, 0, 'initialize', {
              protocolVersion: LEGACY,
              capabilities: {},
              clientInfo: { name: 'kinds-test', version: '1' },
            });
            await fetch(side.url, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                'mcp-session-id': side.session,
                'mcp-protocol-version': LEGACY,
              },
              body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
            });
          }
        }
      });
      afterAll(async () => {
        await Promise.all([direct.gateway.close(), sdk.gateway.close()]);
      });

      it.each(calls)('answers %s exactly as the SDK path does', async (...call) => {
        const id = nextId++;
        const before = await directCount(direct);
        const [mine, theirs] = [await callOn(direct, id, call), await callOn(sdk, id, call)];
        expect(masked(direct, mine)).toEqual(masked(sdk, theirs));
        expect(await directCount(direct)).toBe(before + 1);
        expect(await directCount(sdk)).toBe(0);
      });

      const started = calls.find(([, name, args]) => name.includes('run_async') || args.async === true);
      if (started !== undefined)
        it('answers a job poll and a cancel exactly as the SDK path does, once the job has ended', async () => {
          for (const side of [direct, sdk]) await callOn(side, nextId++, started);
          const poll: Call = ['status', 'skill_get_async_status', { job_id: '<job>' }];
          for (const side of [direct, sdk])
            await waitFor(
              async () => !(await callOn(side, nextId++, poll)).body.includes('"state":"running"'),
              {
                what: 'the job to end',
              },
            );
          const id = nextId++;
          expect(masked(direct, await callOn(direct, id, poll))).toEqual(
            masked(sdk, await callOn(sdk, id, poll)),
          );
          const cancel: Call = ['cancel', 'skill_cancel_async', { job_id: '<job>' }];
          const cid = nextId++;
          expect(masked(direct, await callOn(direct, cid, cancel))).toEqual(
            masked(sdk, await callOn(sdk, cid, cancel)),
          );
        });
    });
  }
}
