import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { type HttpTestUpstream, startHttpUpstream, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// With tools.max_listed 100, a 2025-era namespaced session that unlocked the skill of an upstream with 150 tools
// was sent lists of 154 tools, past the 128-tool refusal the cap exists for: the store kept the skill just
// unlocked whatever its cost. A skill whose own tools exceed what the cap leaves is now disclosed as catalog
// mode does (its get_info names the dispatcher calls with their schemas) and unlocks nothing.
const MAX_LISTED = 100;

let upstream: HttpTestUpstream;
let gw: TestGateway;
beforeAll(async () => {
  upstream = await startHttpUpstream(['--name', 'wide', '--extra-tools', '150']);
  gw = await startTestGateway({
    upstreams: [{ id: 'wide', url: upstream.url, max_tools: 1000 }],
    tools: { max_listed: MAX_LISTED },
  });
  await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state === 'ready'), {
    what: 'the wide upstream ready',
  });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await upstream?.stop();
});

/** An SDK client that re-lists on every tools/list_changed (the SDK's own listChanged auto-refresh). */
async function relistingClient(url: URL) {
  const state = { changes: 0, lists: [] as Tool[][] };
  const client = new Client(
    { name: 'relisting-client', version: '1.0.0' },
    {
      listChanged: {
        tools: {
          debounceMs: 0,
          onChanged: (error, tools) => {
            if (error === null && tools !== null) {
              state.changes += 1;
              state.lists.push(tools);
            }
          },
        },
      },
    },
  );
  await client.connect(new StreamableHTTPClientTransport(url));
  state.lists.push((await client.listTools()).tools);
  return { client, state };
}

describe('a skill too big for tools.max_listed (2025-era namespaced session)', () => {
  it('is disclosed as catalog mode does, unlocks nothing, and no list passes the cap; its tools answer through the dispatcher', async () => {
    const { client, state } = await relistingClient(gw.url);
    try {
      const first = state.lists[0] ?? [];
      expect(first.length).toBeLessThanOrEqual(MAX_LISTED);
      const names = first.map((t) => t.name);
      // The catalog mode's dispatchers are listed from the start, beside the get_info tools.
      expect(names).toContain('skill_wide_get_info');
      expect(names).toEqual(
        expect.arrayContaining(['call_skill_tool', 'read_skill_file', 'run_skill_script']),
      );

      const info = await client.callTool({ name: 'skill_wide_get_info', arguments: {} });
      expect(info.isError).not.toBe(true);
      const text = textOf(info);
      expect(text).toContain('call call_skill_tool {"skill":"wide"');
      expect(text).toContain('"tool":"extra_0149"');
      // A smaller skill still unlocks the usual way (one list_changed), and the list stays under the cap.
      await client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      await waitFor(() => state.changes >= 1, { what: 'the re-listed tools' });
      const listed = (await client.listTools()).tools;
      expect(listed.length).toBeLessThanOrEqual(MAX_LISTED);
      expect(listed.some((t) => t.name.startsWith('skill_wide_call_'))).toBe(false);
      expect(listed.some((t) => t.name.startsWith('skill_gateway-probe_run_'))).toBe(true);
      for (const list of state.lists) expect(list.length).toBeLessThanOrEqual(MAX_LISTED);

      // The big skill's tools are called as its get_info says.
      const echoed = await client.callTool({
        name: 'call_skill_tool',
        arguments: { skill: 'wide', tool: 'extra_0149', arguments: {} },
      });
      expect(echoed.isError).not.toBe(true);
      expect(textOf(echoed)).toBe('extra_0149');
    } finally {
      await client.close();
    }
  });
});
