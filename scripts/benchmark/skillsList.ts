// skills/list (the Skills extension) against modern tools/list on the same gateway and catalog, same run.
import autocannon from 'autocannon';
import type { BenchContext } from './context.js';
import { startServer } from './support.js';
import { TARGETS } from './targets.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** Requests per second of one 2026-07-28 method (50 connections), its median latency, answer size and errors. */
export interface ModernLoad {
  readonly rps: number;
  readonly p50: number;
  readonly bytes: number;
  readonly errors: number;
}

/** Loads one request (checked once first: an error answer would measure nothing). */
async function modernLoad(url: string, method: string, params: object, seconds: number): Promise<ModernLoad> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, method, params: { _meta: META, ...params } });
  const probe = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    },
    body,
  });
  const answer = await probe.text();
  if (!probe.ok || answer.includes('"error"'))
    throw new Error(`${method}: ${probe.status} ${answer.slice(0, 300)}`);
  const result = await autocannon({
    url: `${url}/mcp`,
    method: 'POST',
    connections: 50,
    duration: seconds,
    body,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
    },
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    bytes: Buffer.byteLength(answer),
    errors: result.non2xx + result.errors,
  };
}

/**
 * On one gateway serving `root` (1,000 skills): modern tools/list (catalog mode), the first page of
 * skills/list (100 entries), its second page (both rendered once), and a page from a mid-page cursor
 * (the SDK's path), alternating twice so that all see the same machine load; each figure is the better of
 * its two rounds.
 */
async function skillsListBench(root: string, seconds: number) {
  const gateway = await startServer('gateway', root);
  try {
    const cursorOf = async () => {
      const response = await fetch(`${gateway.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'skills/list',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: { _meta: META } }),
      });
      return ((await response.json()) as { result: { nextCursor: string } }).result.nextCursor;
    };
    const cursor = await cursorOf();
    // A valid cursor that does not fall on a page boundary: only the SDK's path answers it.
    const midPage = Buffer.from('after:skill://gen-00004/SKILL.md').toString('base64url');
    const best = (a: ModernLoad, b: ModernLoad) => (a.rps >= b.rps ? a : b);
    let tools: ModernLoad | undefined;
    let skills: ModernLoad | undefined;
    let laterPage: ModernLoad | undefined;
    let sdkPage: ModernLoad | undefined;
    for (let round = 0; round < 2; round++) {
      const t = await modernLoad(gateway.url, 'tools/list', {}, seconds);
      const s = await modernLoad(gateway.url, 'skills/list', {}, seconds);
      const l = await modernLoad(gateway.url, 'skills/list', { cursor }, seconds);
      const p = await modernLoad(gateway.url, 'skills/list', { cursor: midPage }, seconds);
      tools = tools === undefined ? t : best(tools, t);
      skills = skills === undefined ? s : best(skills, s);
      laterPage = laterPage === undefined ? l : best(laterPage, l);
      sdkPage = sdkPage === undefined ? p : best(sdkPage, p);
    }
    if (tools === undefined || skills === undefined || laterPage === undefined || sdkPage === undefined)
      throw new Error('no rounds');
    return { tools, skills, laterPage, sdkPage };
  } finally {
    await gateway.stop();
  }
}

/** The skills-list phase: the Skills extension's skills/list (1,000 skills) against modern tools/list. */
export async function skillsListPhase(context: BenchContext): Promise<void> {
  const { row, fmt } = context;
  const { tools, skills, laterPage, sdkPage } = await skillsListBench(
    await context.skills(1000, 5),
    context.quick ? 2 : 5,
  );
  context.result('skills_list', { tools, skills, later_page: laterPage, sdk_page: sdkPage });
  const pct = (n: number) => `${fmt((n / tools.rps) * 100, 0)}%`;
  row(
    'skills',
    'skills/list req/s, first page of 1,000 skills',
    fmt(skills.rps),
    `modern tools/list ${fmt(tools.rps)}`,
    pct(skills.rps),
    TARGETS.skillsListPage,
    skills.rps / tools.rps,
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
    if (load.errors > 0)
      row('skills', `${name} errors`, String(load.errors), '', '', TARGETS.noErrors, load.errors);
  }
}
