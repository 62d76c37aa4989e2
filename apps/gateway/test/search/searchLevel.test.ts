import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RegistryServer, readRegistryServers, writeRegistrySkills } from '@skillgate/testkit';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  EXAMPLES_ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
} from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

// 491 real MCP servers as skills (the ETOM catalogue, MIT; packages/testkit/src/registrySkills.ts), the
// bundled example skills (scripts to run), and the MCP reference server as a real upstream whose tool
// text is searched.
const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const FULL = 'full-token-0123456789abcdefgh';
const PART = 'part-token-0123456789abcdefgh';
// What the part token may use: the servers whose skill names start with a-d, and one example skill.
const PART_SKILLS = ['[a-d]*', 'text-stats'];
const ENV = { ...process.env, T_FULL: FULL, T_PART: PART };

let work: string;
let gw: TestGateway;
let visibleOnly: TestGateway;
let servers: readonly RegistryServer[];

const tokens = {
  tokens: [
    { name: 'full', token_env: 'T_FULL', skills: ['*'] },
    { name: 'part', token_env: 'T_PART', skills: PART_SKILLS },
  ],
};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-search-'));
  servers = await readRegistryServers();
  const written = await writeRegistrySkills({ root: join(work, 'all') });
  // The same skills the part token may use, and nothing else: the reference its search must equal.
  const visible = written.names.filter((name) => /^[a-d]/.test(name));
  await writeRegistrySkills({
    root: join(work, 'visible'),
    servers: servers.filter((_, i) => visible.includes(written.names[i] ?? '')),
  });
  gw = await startTestGateway(
    {
      skills: { roots: [join(work, 'all'), EXAMPLES_ROOT] },
      auth: tokens,
      upstreams: [
        {
          id: 'everything',
          command: [process.execPath, EVERYTHING, 'stdio'],
          description: 'The MCP reference server.',
          tools: ['echo', 'get-sum'],
        },
      ],
    },
    ENV,
  );
  visibleOnly = await startTestGateway(
    {
      skills: { roots: [join(work, 'visible'), join(EXAMPLES_ROOT)], disclosure: 'search' },
      auth: { tokens: [{ name: 'part', token_env: 'T_PART', skills: PART_SKILLS }] },
    },
    ENV,
  );
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await visibleOnly?.close();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

interface SearchOut {
  results: Array<{ skill: string; score: number; tools: Array<{ name: string }>; load: unknown }>;
  nextCursor?: string;
}

const firstContext = (tools: unknown[], instructions: string | undefined) =>
  encode(JSON.stringify(tools)).length + encode(instructions ?? '').length;

describe('the search level at 491 skills', () => {
  it('a 2025-era session of the default config gets the search surface: under 128 tools and 2,500 tokens', async () => {
    const c = await connectClient(gw.url, { token: FULL });
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      'search_skills',
      'load_skill',
      'read_skill_file',
      'run_skill_script',
      'call_skill_tool',
    ]);
    const instructions = c.client.getInstructions();
    expect(instructions?.length).toBeLessThanOrEqual(2048);
    expect(instructions).toContain('499 skills are available to you');
    expect(instructions).not.toContain('heroku');
    expect(firstContext(tools, instructions)).toBeLessThan(2500);
    await c.close();
  });

  it('a 2026-07-28 request (catalog by default) gets the same bounded surface', async () => {
    const c = await connectV2(gw.url, { era: 'modern', token: FULL });
    const { tools } = await c.client.listTools();
    expect(tools.length).toBeLessThan(128);
    expect(tools.map((t) => t.name)).toContain('search_skills');
    expect(firstContext(tools, c.client.getInstructions())).toBeLessThan(2500);
    await c.close();
  });

  it('search -> load_skill -> run_skill_script works over SDK v1 (2025) and v2 (2026-07-28)', async () => {
    const v1 = await connectClient(gw.url, { token: FULL });
    const v2 = await connectV2(gw.url, { era: 'modern', token: FULL });
    for (const client of [v1.client, v2.client]) {
      const found = await client.callTool({
        name: 'search_skills',
        arguments: { query: 'count the words and lines of a text' },
      });
      const out = found.structuredContent as unknown as SearchOut;
      const hit = out.results.find((r) => r.skill === 'text-stats');
      expect(hit?.load).toEqual({ tool: 'load_skill', arguments: { name: 'text-stats' } });
      expect(textOf(found)).toContain('text-stats');
      const loaded = await client.callTool({ name: 'load_skill', arguments: { name: 'text-stats' } });
      expect(textOf(loaded)).toContain('run_skill_script');
      const ran = await client.callTool({
        name: 'run_skill_script',
        arguments: { skill: 'text-stats', path: 'scripts/stats.py', stdin: 'a b a' },
      });
      expect(JSON.parse((ran.structuredContent as { stdout: string }).stdout)).toMatchObject({ words: 3 });
    }
    expect(v1.listChanged()).toBe(0);
    await v1.close();
    await v2.close();
  });

  it('finds a server by its tools and an upstream by its tool text, naming the matching tools', async () => {
    const c = await connectClient(gw.url, { token: FULL });
    const heroku = await c.client.callTool({
      name: 'search_skills',
      arguments: { query: 'rename my Heroku app', limit: 3 },
    });
    expect((heroku.structuredContent as unknown as SearchOut).results[0]?.skill).toBe('heroku-mcp-server');
    const echo = await c.client.callTool({
      name: 'search_skills',
      arguments: { query: 'echo back a message and get the sum of two numbers', limit: 20 },
    });
    const everything = (echo.structuredContent as unknown as SearchOut).results.find(
      (r) => r.skill === 'everything',
    );
    expect(everything?.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'get-sum']));
    const loaded = await c.client.callTool({ name: 'load_skill', arguments: { name: 'everything' } });
    expect(textOf(loaded)).toContain('call_skill_tool');
    await c.close();
  });

  it('"*" pages through every skill in name order; a query that matches nothing says how to browse', async () => {
    const c = await connectClient(gw.url, { token: PART });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await c.client.callTool({
        name: 'search_skills',
        arguments: { query: '*', limit: 20, ...(cursor === undefined ? {} : { cursor }) },
      });
      const out = page.structuredContent as unknown as SearchOut;
      seen.push(...out.results.map((r) => r.skill));
      cursor = out.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual([...seen].sort());
    expect(seen.every((name) => /^[a-d]/.test(name) || name === 'text-stats')).toBe(true);
    expect(new Set(seen).size).toBe(seen.length);
    const none = await c.client.callTool({ name: 'search_skills', arguments: { query: 'zzqxv' } });
    expect((none.structuredContent as unknown as SearchOut).results).toEqual([]);
    expect(textOf(none)).toContain(`"*" to list all ${seen.length} skills`);
    await c.close();
  });
});

describe('hidden skills are invisible to search', () => {
  it('a token with an allow-list gets exactly the results and scores of a gateway serving only its skills', async () => {
    const part = await connectClient(gw.url, { token: PART });
    const reference = await connectClient(visibleOnly.url, { token: PART });
    const queries = [
      'deploy a container to the cloud',
      'rename my Heroku app',
      'search academic papers',
      'On Figma, export a frame as PNG',
      'send a message to a channel',
      'get weather forecast',
    ];
    for (const query of queries) {
      const ask = (client: typeof part.client) =>
        client.callTool({ name: 'search_skills', arguments: { query, limit: 20 } });
      const [got, want] = await Promise.all([ask(part.client), ask(reference.client)]);
      expect(got.structuredContent, query).toEqual(want.structuredContent);
    }
    // Loading or running a hidden skill answers as if it did not exist.
    const hidden = await part.client.callTool({
      name: 'load_skill',
      arguments: { name: 'heroku-mcp-server' },
    });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).not.toContain('Heroku Platform');
    await part.close();
    await reference.close();
  });
});

describe('search_skills refuses bad input with -32602', () => {
  it.each([
    ['an empty query', { query: '' }],
    ['a query over 1,000 characters', { query: 'x'.repeat(1001) }],
    ['a query that is not a string', { query: 42 }],
    ['a limit of 0', { query: 'deploy', limit: 0 }],
    ['a limit over 20', { query: 'deploy', limit: 21 }],
    ['a cursor of another query', { query: 'deploy', cursor: Buffer.from('5:abc').toString('base64url') }],
  ])('%s', async (_what, args) => {
    const c = await connectClient(gw.url, { token: FULL });
    await expect(c.client.callTool({ name: 'search_skills', arguments: args })).rejects.toMatchObject({
      code: -32602,
    });
    await c.close();
  });
});

describe('tools.max_listed', () => {
  it('switches a small catalog to search only past the cap, and leaves it as it was below', async () => {
    const capped = await startTestGateway({ skills: { roots: [EXAMPLES_ROOT] }, tools: { max_listed: 3 } });
    const c = await connectClient(capped.url);
    expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('search_skills');
    // load_skill answers like catalog's get_info and unlocks nothing; an unlisted get_info is unknown.
    const loaded = await c.client.callTool({ name: 'load_skill', arguments: { name: 'text-stats' } });
    expect(textOf(loaded)).toContain('run_skill_script');
    expect(c.listChanged()).toBe(0);
    await expect(
      c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} }),
    ).rejects.toMatchObject({ code: -32602 });
    await c.close();
    await capped.close();
    const plain = await startTestGateway({ skills: { roots: [EXAMPLES_ROOT] } });
    const d = await connectClient(plain.url);
    const names = (await d.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('search_skills');
    expect(names).toContain('skill_text-stats_get_info');
    await d.close();
    await plain.close();
  });
});
