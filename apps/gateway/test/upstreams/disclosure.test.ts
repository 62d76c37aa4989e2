import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TEST_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  EXAMPLES_ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

// Real third-party MCP servers from npm, started over stdio by the gateway itself.
const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
// Our own test upstream (packages/upstreams) for what the reference servers cannot do on demand.
const PROBE = TEST_UPSTREAM;

/** The call tool of everything's `trigger-long-running-operation`: 54 chars in full, so shortened. */
const LONG_RUNNING = 'skill_everything_call_running-operation_0b2653';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';
const EAGER = 'eager-token-0123456789abcdef';
const UNIVERSAL = 'universal-token-0123456789ab';

let gw: TestGateway;
let root: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillgate-upstreams-'));
  // A folder skill that binds two tools of the memory server (a `skill: none` upstream) beside a reference.
  await mkdir(join(root, 'notes/references'), { recursive: true });
  await writeFile(
    join(root, 'notes/SKILL.md'),
    '---\nname: notes\ndescription: Remember facts in a knowledge graph.\nallowed-tools: mcp__memory__read_graph mcp__memory__create_entities\n---\n\n# Notes\nStore facts as entities.\n',
  );
  await writeFile(join(root, 'notes/references/guide.md'), '# guide\n');
  gw = await startTestGateway(
    {
      skills: { roots: [EXAMPLES_ROOT, root] },
      upstreams: [
        {
          id: 'everything',
          command: [process.execPath, EVERYTHING, 'stdio'],
          description: 'The MCP reference server: echo, sums, progress.',
          tools: ['echo', 'get-sum', 'trigger-long-running-operation'],
        },
        {
          id: 'memory',
          command: [process.execPath, MEMORY],
          skill: 'none',
          env_from: { MEMORY_FILE_PATH: 'T_MEMORY_FILE' },
          // Sandboxed, the server writes only where its config lets it: the folder of its memory file.
          sandbox: { write: [root] },
        },
        {
          id: 'probe',
          command: [process.execPath, PROBE, '--stdio'],
          timeout_seconds: 1,
          max_result_bytes: 4096,
        },
        // Nothing listens there: the upstream stays down and is retried.
        { id: 'gone', url: 'http://127.0.0.1:9/mcp', description: 'A server that is down.' },
      ],
      auth: {
        tokens: [
          { name: 'alice', token_env: 'T_ALICE', skills: ['*'] },
          { name: 'bob', token_env: 'T_BOB', skills: ['notes', 'text-stats'] },
          { name: 'eager', token_env: 'T_EAGER', skills: ['*'] },
          { name: 'universal', token_env: 'T_UNIVERSAL', skills: ['*'] },
        ],
      },
      clients: [
        { match: { principal: 'eager' }, disclosure: 'eager' },
        { match: { principal: 'universal' }, disclosure: 'universal' },
      ],
    },
    {
      ...process.env,
      T_ALICE: ALICE,
      T_BOB: BOB,
      T_EAGER: EAGER,
      T_UNIVERSAL: UNIVERSAL,
      T_MEMORY_FILE: join(root, 'memory.jsonl'),
    },
  );
  // The stdio servers are connected once their tools are in the catalog.
  await waitFor(() => gw.gateway.catalogs.current.skills.get('everything')?.calls.has('echo') === true);
  await waitFor(() => gw.gateway.catalogs.current.skills.get('notes')?.calls.has('read_graph') === true);
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await rm(root, { recursive: true, force: true });
});

const call = (client: V1Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args });

describe('upstream tools, 2025 era, namespaced (SDK v1 client)', () => {
  it('lists get_info only; get_info unlocks the call tools with one list_changed; a call reaches the real server', async () => {
    const c = await connectClient(gw.url, { token: ALICE });
    try {
      const first = await toolNames(c.client);
      expect(first).toContain('skill_everything_get_info');
      expect(first).toContain('skill_notes_get_info');
      expect(first).toContain('skill_gone_get_info');
      expect(first.filter((n) => n.includes('_call_'))).toEqual([]);
      expect(first).not.toContain('call_skill_tool');

      const locked = await call(c.client, 'skill_everything_call_echo', { message: 'early' });
      expect(locked.isError).toBe(true);
      expect(textOf(locked)).toContain('skill_everything_get_info');

      const info = textOf(await call(c.client, 'skill_everything_get_info'));
      expect(info).toContain('- skill_everything_call_echo: tool "echo" of upstream "everything"');
      expect(info).toContain('"message":{"type":"string"');
      await waitFor(() => c.listChanged() === 1);

      const { tools } = await c.client.listTools();
      const echo = tools.find((t) => t.name === 'skill_everything_call_echo');
      expect(echo?.description).toBe('Echoes back the input string');
      expect(echo?.annotations).toMatchObject({ readOnlyHint: true });
      expect(echo?.inputSchema).toMatchObject({ type: 'object', required: ['message'] });
      // A name past tools.max_name_length (48) keeps `_call_` and ends in a hash.
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['skill_everything_call_get-sum', LONG_RUNNING]),
      );

      const echoed = await call(c.client, 'skill_everything_call_echo', { message: 'hello upstream' });
      expect(echoed.isError).toBeFalsy();
      expect(textOf(echoed)).toBe('Echo: hello upstream');
      const sum = await call(c.client, 'skill_everything_call_get-sum', { a: 2, b: 40 });
      expect(textOf(sum)).toContain('42');
    } finally {
      await c.close();
    }
  });

  it('forwards a progressToken upstream and the upstream progress back to the caller', async () => {
    const c = await connectClient(gw.url, { token: ALICE });
    try {
      await call(c.client, 'skill_everything_get_info');
      const seen: Array<{ progress: number; total?: number }> = [];
      const result = await c.client.callTool(
        {
          name: LONG_RUNNING,
          arguments: { duration: 0.3, steps: 3 },
        },
        undefined,
        { onprogress: (p) => seen.push({ progress: p.progress, total: p.total }) },
      );
      expect(result.isError).toBeFalsy();
      // The server writes its last step right before the result: it arrives too (typescript-sdk issue #2580).
      expect(seen).toEqual([
        { progress: 1, total: 3 },
        { progress: 2, total: 3 },
        { progress: 3, total: 3 },
      ]);
    } finally {
      await c.close();
    }
  });

  it('binds upstream tools to a folder skill: only the bound ones, beside its files', async () => {
    const c = await connectClient(gw.url, { token: BOB });
    try {
      const info = textOf(await call(c.client, 'skill_notes_get_info'));
      expect(info).toContain('skill_notes_read_guide_md');
      expect(info).toContain('skill_notes_call_read_graph');
      expect(info).toContain('skill_notes_call_create_entities');
      expect(info).not.toContain('delete_entities');
      const created = await call(c.client, 'skill_notes_call_create_entities', {
        entities: [{ name: 'skillgate', entityType: 'project', observations: ['gates MCP servers'] }],
      });
      expect(created.isError).toBeFalsy();
      const graph = await call(c.client, 'skill_notes_call_read_graph');
      expect(textOf(graph)).toContain('gates MCP servers');
    } finally {
      await c.close();
    }
  });

  it('answers a down upstream: its get_info says so and why; the dispatcher names no tool it never listed', async () => {
    const c = await connectClient(gw.url, { token: ALICE });
    try {
      const info = textOf(await call(c.client, 'skill_gone_get_info'));
      expect(info).toMatch(/Upstream "gone" is (unavailable|still connecting)/);
      const viaDispatcher = await connectV2(gw.url, { era: 'modern', token: ALICE });
      try {
        const result = await viaDispatcher.client.callTool({
          name: 'call_skill_tool',
          arguments: { skill: 'gone', tool: 'anything' },
        });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toContain('Skill "gone" has no upstream tool "anything"');
      } finally {
        await viaDispatcher.close();
      }
    } finally {
      await c.close();
    }
  });
});

describe('upstream failures are tool errors with a reason (both eras)', () => {
  it('UPSTREAM_TIMEOUT, RESULT_TOO_LARGE, UPSTREAM_ERROR; an upstream tool error passes through as it is', async () => {
    const legacy = await connectClient(gw.url, { token: EAGER });
    const modern = await connectV2(gw.url, { era: 'modern', token: ALICE });
    try {
      const viaName = (tool: string, args: Record<string, unknown>) =>
        call(legacy.client, `skill_probe_call_${tool}`, args);
      const viaDispatcher = (tool: string, args: Record<string, unknown>) =>
        modern.client.callTool({
          name: 'call_skill_tool',
          arguments: { skill: 'probe', tool, arguments: args },
        });
      for (const send of [viaName, viaDispatcher]) {
        const slow = await send('sleep', { ms: 5000 });
        expect(slow.isError).toBe(true);
        expect(slow.structuredContent).toMatchObject({
          reason: 'UPSTREAM_TIMEOUT',
          upstream: 'probe',
          tool: 'sleep',
        });
        const big = await send('big', { bytes: 10_000 });
        expect(big.isError).toBe(true);
        expect(big.structuredContent).toMatchObject({ reason: 'RESULT_TOO_LARGE' });
        const thrown = await send('throw', { message: 'upstream broke' });
        expect(thrown.isError).toBe(true);
        expect(thrown.structuredContent).toMatchObject({ reason: 'UPSTREAM_ERROR' });
        expect(textOf(thrown)).toContain('upstream broke');
        const failed = await send('fail', { message: 'a tool error of its own' });
        expect(failed.isError).toBe(true);
        expect(failed.structuredContent).toBeUndefined();
        expect(textOf(failed)).toBe('a tool error of its own');
        // Other upstreams keep working.
        expect(textOf(await send('echo', { text: 'still here' }))).toBe('still here');
      }
    } finally {
      await legacy.close();
      await modern.close();
    }
  });

  it("forwards progress of our own upstream under the caller's token (2026-07-28)", async () => {
    const c = await connectV2(gw.url, { era: 'modern', token: ALICE });
    try {
      const seen: string[] = [];
      const result = await c.client.callTool(
        { name: 'call_skill_tool', arguments: { skill: 'probe', tool: 'progress', arguments: { steps: 3 } } },
        { onprogress: (p) => seen.push(`${p.progress}/${p.total}:${p.message}`) },
      );
      expect(textOf(result)).toBe('done 3');
      // Total and message come through as the upstream sent them, every step.
      expect(seen).toEqual(['1/3:step 1', '2/3:step 2', '3/3:step 3']);
    } finally {
      await c.close();
    }
  });
});

describe('upstream tools, 2026-07-28 (SDK v2 client, catalog mode)', () => {
  it('lists call_skill_tool and no call tools; get_info prints the exact call; the list never changes', async () => {
    const c = await connectV2(gw.url, { era: 'modern', token: ALICE });
    try {
      const before = (await c.client.listTools()).tools.map((t) => t.name);
      expect(before).toContain('call_skill_tool');
      expect(before.filter((n) => n.includes('_call_'))).toEqual([]);
      const info = await c.client.callTool({ name: 'skill_everything_get_info', arguments: {} });
      expect(textOf(info)).toContain(
        'call call_skill_tool {"skill":"everything","tool":"echo","arguments":{...}}',
      );
      const echoed = await c.client.callTool({
        name: 'call_skill_tool',
        arguments: { skill: 'everything', tool: 'echo', arguments: { message: 'modern hello' } },
      });
      expect(textOf(echoed)).toBe('Echo: modern hello');
      const after = (await c.client.listTools()).tools.map((t) => t.name);
      expect(after).toEqual(before);
      // A call tool by name is not part of this list: the same answer as for any unknown tool.
      await expect(
        c.client.callTool({ name: 'skill_everything_call_echo', arguments: { message: 'x' } }),
      ).rejects.toThrow(/Unknown tool/);
    } finally {
      await c.close();
    }
  });

  it('calls through a folder skill binding too', async () => {
    const c = await connectV2(gw.url, { era: 'modern', token: BOB });
    try {
      const graph = await c.client.callTool({
        name: 'call_skill_tool',
        arguments: { skill: 'notes', tool: 'read_graph' },
      });
      expect(graph.isError).toBeFalsy();
      expect(textOf(graph)).toContain('entities');
    } finally {
      await c.close();
    }
  });
});

describe('upstream tools and per-token allow-lists', () => {
  it("hides another skill's call tools on every path: by name, by the dispatcher, in lists", async () => {
    const legacy = await connectClient(gw.url, { token: BOB });
    const modern = await connectV2(gw.url, { era: 'modern', token: BOB });
    try {
      const names = await toolNames(legacy.client);
      expect(names).not.toContain('skill_everything_get_info');
      await expect(call(legacy.client, 'skill_everything_get_info')).rejects.toThrow(/Unknown tool/);
      await expect(call(legacy.client, 'skill_everything_call_echo', { message: 'x' })).rejects.toThrow(
        /Unknown tool/,
      );
      const refused = await modern.client.callTool({
        name: 'call_skill_tool',
        arguments: { skill: 'everything', tool: 'echo', arguments: { message: 'x' } },
      });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain('Unknown skill "everything"');
      const modernNames = (await modern.client.listTools()).tools.map((t) => t.name);
      expect(modernNames).not.toContain('skill_everything_get_info');
      // bob may use notes, which binds memory tools: the dispatcher is there for it.
      expect(modernNames).toContain('call_skill_tool');
    } finally {
      await legacy.close();
      await modern.close();
    }
  });
});

describe('upstream tools in eager and universal modes (2025 era)', () => {
  it('eager lists every call tool from the start and calls it by name', async () => {
    const c = await connectClient(gw.url, { token: EAGER });
    try {
      const names = await toolNames(c.client);
      expect(names).toContain('skill_everything_call_echo');
      expect(names).toContain('skill_notes_call_read_graph');
      expect(names).not.toContain('call_skill_tool');
      expect(textOf(await call(c.client, 'skill_everything_call_echo', { message: 'eager' }))).toBe(
        'Echo: eager',
      );
    } finally {
      await c.close();
    }
  });

  it('universal adds call_skill_tool; load_skill prints the calls', async () => {
    const c = await connectClient(gw.url, { token: UNIVERSAL });
    try {
      const names = await toolNames(c.client);
      expect(names).toContain('call_skill_tool');
      expect(names.filter((n) => n.includes('_call_'))).toEqual([]);
      expect(c.client.getInstructions()).toContain('are called with call_skill_tool');
      const loaded = textOf(await call(c.client, 'load_skill', { name: 'everything' }));
      expect(loaded).toContain('call call_skill_tool {"skill":"everything","tool":"get-sum"');
      const sum = await call(c.client, 'call_skill_tool', {
        skill: 'everything',
        tool: 'get-sum',
        arguments: { a: 1, b: 2 },
      });
      expect(textOf(sum)).toContain('3');
    } finally {
      await c.close();
    }
  });
});
