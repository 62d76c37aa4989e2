import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  createTempSkills,
  type RedisServer,
  startRedisServer,
  type TempSkills,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// Six skills of four reference files each: every unlocked skill adds its read tools. With tools.max_listed 14 a
// 2025-era namespaced session lists 6 get_info tools and room for two unlocked skills, never a third.
const SKILLS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
const MAX_LISTED = 14;

let skills: TempSkills;
let redis: RedisServer;

beforeAll(async () => {
  const files = Object.fromEntries(
    ['a', 'b', 'c', 'd'].map((f) => [`references/${f}.md`, `# ${f}\nReference ${f}.\n`]),
  );
  skills = await createTempSkills(Object.fromEntries(SKILLS.map((name) => [name, { files }])));
  redis = await startRedisServer();
});
afterAll(async () => {
  await skills?.close();
  await redis?.close();
});

const backends: Record<string, () => Promise<TestGateway>> = {
  memory: () => startTestGateway({ skills: { roots: [skills.root] }, tools: { max_listed: MAX_LISTED } }),
  redis: () =>
    startTestGateway(
      {
        skills: { roots: [skills.root] },
        tools: { max_listed: MAX_LISTED },
        state: { backend: 'redis', key_prefix: `unlock-cap-${Date.now()}:` },
      },
      { ...process.env, SKILLGATE_REDIS_URL: redis.url },
    ),
};

/** An SDK client that re-lists on every tools/list_changed (the SDK's own listChanged auto-refresh). */
async function relistingClient(url: URL) {
  const state = { changes: 0, tools: [] as Tool[] };
  const client = new Client(
    { name: 'relisting-client', version: '1.0.0' },
    {
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (error, tools) => {
            if (error === null && tools !== null) {
              state.changes += 1;
              state.tools = tools;
            }
          },
        },
      },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  state.tools = (await client.listTools()).tools;
  return { client, state };
}

const skillsListed = (tools: readonly Tool[]) =>
  SKILLS.filter((s) => tools.some((t) => t.name.startsWith(`skill_${s}_read_`)));

describe.each(Object.keys(backends))('a 2025-era session under tools.max_listed (%s store)', (backend) => {
  let gw: TestGateway;
  beforeAll(async () => {
    const start = backends[backend];
    if (start === undefined) throw new Error(`no backend ${backend}`);
    gw = await start();
  }, 30_000);
  afterAll(async () => gw?.close());

  it('an unlock past the cap drops the least recently used skill: one list_changed, the list never past the cap', async () => {
    const { client, state } = await relistingClient(gw.url);
    expect(state.tools).toHaveLength(SKILLS.length);
    const getInfo = async (skill: string) => {
      const before = state.changes;
      const result = await client.callTool({ name: `skill_${skill}_get_info`, arguments: {} });
      expect(result.isError).not.toBe(true);
      return before;
    };
    const afterOneChange = async (before: number) => {
      await waitFor(() => state.changes === before + 1, { what: 'the re-listed tools' });
      expect(state.tools.length).toBeLessThanOrEqual(MAX_LISTED);
    };
    const readTool = (skill: string) => `skill_${skill}_read_a_md`;

    await afterOneChange(await getInfo('alpha'));
    await afterOneChange(await getInfo('beta'));
    expect(skillsListed(state.tools)).toEqual(['alpha', 'beta']);
    // Using alpha's tool makes it the most recently used: beta goes first.
    const read = await client.callTool({ name: readTool('alpha'), arguments: {} });
    expect(textOf(read)).toContain('Reference a.');
    await afterOneChange(await getInfo('gamma'));
    expect(skillsListed(state.tools)).toEqual(['alpha', 'gamma']);
    expect(state.tools).toHaveLength(MAX_LISTED);
    expect(skillsListed((await client.listTools()).tools)).toEqual(['alpha', 'gamma']);

    // A dropped skill's tool answers the ordinary locked error, naming the get_info to call again.
    const dropped = await client.callTool({ name: readTool('beta'), arguments: {} });
    expect(dropped.isError).toBe(true);
    expect(textOf(dropped)).toContain('Call skill_beta_get_info first');

    // get_info again on an unlocked skill changes no list but makes it the most recently used.
    const changes = state.changes;
    await getInfo('alpha');
    await afterOneChange(await getInfo('beta'));
    expect(state.changes).toBe(changes + 1);
    expect(skillsListed(state.tools)).toEqual(['alpha', 'beta']);
    await client.close();
  });
});
