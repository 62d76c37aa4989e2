import { createRequire } from 'node:module';
import { createTempSkills, type TempSkills, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

// Search mode lists call_skill_tool only while a usable skill uses an upstream. A reload that adds the first
// such skill changes the list of every searching principal, though no listed skill changed: each 2025-era
// session and each 2026-07-28 listen stream must hear it once.
const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let skills: TempSkills;
let gw: TestGateway;

beforeAll(async () => {
  skills = await createTempSkills(
    Object.fromEntries(['alpha', 'beta', 'gamma', 'delta'].map((name) => [name, {}])),
  );
  gw = await startTestGateway({
    skills: { roots: [skills.root], disclosure: 'search', modern_disclosure: 'search' },
    upstreams: [
      {
        id: 'everything',
        command: [process.execPath, EVERYTHING, 'stdio'],
        description: 'The MCP reference server.',
        skill: 'none',
        tools: ['echo'],
      },
    ],
  });
}, 30_000);

afterAll(async () => {
  await gw?.close();
  await skills?.close();
});

describe('search mode: a reload that adds the first skill using an upstream', () => {
  it('sends list_changed to a 2025-era session and a 2026-07-28 listen stream; call_skill_tool is listed', async () => {
    const legacy = await connectClient(gw.url);
    const modern = await connectV2(gw.url, { era: 'modern' });
    const subscription = await modern.client.listen({ toolsListChanged: true });
    const names = async (client: typeof legacy.client | typeof modern.client) =>
      (await client.listTools()).tools.map((t) => t.name);
    expect(await names(legacy.client)).not.toContain('call_skill_tool');
    expect(await names(modern.client)).not.toContain('call_skill_tool');

    await skills.put(
      'root/echoer/SKILL.md',
      '---\nname: echoer\ndescription: Echoes text back.\nallowed-tools: mcp__everything__echo\n---\n# echoer\n',
    );
    await gw.gateway.catalogs.reload();
    await waitFor(() => legacy.listChanged() === 1, { what: 'list_changed on the 2025-era session' });
    await waitFor(() => modern.listChanged() === 1, { what: 'list_changed on the listen stream' });
    expect(await names(legacy.client)).toContain('call_skill_tool');
    expect(await names(modern.client)).toContain('call_skill_tool');
    const echoed = await legacy.client.callTool({
      name: 'call_skill_tool',
      arguments: { skill: 'echoer', tool: 'echo', arguments: { message: 'hi' } },
    });
    expect(JSON.stringify(echoed.content)).toContain('hi');

    await subscription.close();
    await legacy.close();
    await modern.close();
  });
});
