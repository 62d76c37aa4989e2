import { waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initializeBody, messagesOf, openSession, post } from '../helpers/rawHttp.js';
import {
  connectClient,
  startTestGateway,
  type TestClient,
  type TestGateway,
  textOf,
} from '../helpers/testGateway.js';

// Bad input as an attacker would send it. After every case a well-behaved client must still be served.
const TOKEN_A = 'attack-a-0123456789abcdef';
const TOKEN_B = 'attack-b-0123456789abcdef';
const auth = (token: string) => ({ authorization: `Bearer ${token}` });

let gw: TestGateway;
let healthy: TestClient;
beforeAll(async () => {
  gw = await startTestGateway(
    {
      server: { body_limit_bytes: 256 * 1024 },
      auth: {
        tokens: [
          { name: 'agent-a', token_env: 'ATTACK_TOKEN_A' },
          { name: 'agent-b', token_env: 'ATTACK_TOKEN_B' },
        ],
      },
      sessions: { max_per_principal: 20 },
      scripts: {
        max_args: 8,
        max_arg_bytes: 1024,
        max_stdin_bytes: 4096,
        max_concurrent_per_principal: 1,
        max_queue: 0,
      },
      rate_limit: { requests_per_second: 0 },
    },
    { ...process.env, ATTACK_TOKEN_A: TOKEN_A, ATTACK_TOKEN_B: TOKEN_B },
  );
  healthy = await connectClient(gw.url, { token: TOKEN_B });
  await healthy.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
});
afterAll(async () => {
  await healthy.close();
  await gw.close();
});
afterEach(async () => {
  const run = await healthy.client.callTool({
    name: 'skill_text-stats_run_stats_py',
    arguments: { stdin: 'still here' },
  });
  expect(run.isError).toBeFalsy();
});

describe('malformed requests', () => {
  it.each([
    ['a JSON string', '"hello"'],
    ['a number', '42'],
    ['null', 'null'],
    ['an object that is not JSON-RPC', '{"hello": "world"}'],
    ['a wrong jsonrpc version', '{"jsonrpc": "1.0", "id": 1, "method": "initialize"}'],
  ])('refuses %s without a session with a 400 JSON-RPC error', async (_label, body) => {
    const response = await post(gw.url, body, auth(TOKEN_A));
    expect(response.status).toBe(400);
    expect(await response.json()).toHaveProperty('error.code');
  });

  it('survives deeply nested JSON and a huge string with a clean error', async () => {
    const nested = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    expect((await post(gw.url, nested, auth(TOKEN_A))).status).toBe(400);
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'x',
      params: { s: 'y'.repeat(300 * 1024) },
    });
    expect((await post(gw.url, huge, auth(TOKEN_A))).status).toBe(413);
  });

  it('refuses an invalid JSON-RPC message inside a session', async () => {
    const session = await openSession(gw.url, auth(TOKEN_A));
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: {}, method: 7 },
      { ...auth(TOKEN_A), 'mcp-session-id': session },
    );
    expect(response.status).toBe(400);
  });
});

describe('JSON-RPC batches', () => {
  const batch = [
    { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
    { jsonrpc: '2.0', id: 'b', method: 'ping' },
    { jsonrpc: '2.0', id: 'c', method: 'tools/call', params: { name: 'nope', arguments: {} } },
  ];

  it('refuses batches in sessions of revisions without them, and empty or bare batches', async () => {
    const session = await openSession(gw.url, auth(TOKEN_A));
    const inSession = await post(gw.url, batch, { ...auth(TOKEN_A), 'mcp-session-id': session });
    expect(inSession.status).toBe(400);
    expect(await inSession.json()).toMatchObject({ error: { code: -32600 } });
    for (const body of [[], batch]) {
      const bare = await post(gw.url, body, auth(TOKEN_A));
      expect(bare.status).toBe(400);
      expect(await bare.json()).toMatchObject({ error: { code: -32600 } });
    }
  });

  it('answers every request of a batch in a 2025-03-26 session, each with its own id', async () => {
    const init = await post(
      gw.url,
      { ...initializeBody(), params: { ...initializeBody().params, protocolVersion: '2025-03-26' } },
      auth(TOKEN_A),
    );
    const session = init.headers.get('mcp-session-id') ?? '';
    await init.text();
    const response = await post(gw.url, batch, { ...auth(TOKEN_A), 'mcp-session-id': session });
    const messages = await messagesOf(response);
    const flat = messages.flatMap((m) => (Array.isArray(m) ? m : [m])) as Array<Record<string, unknown>>;
    expect(flat.map((m) => m.id).sort()).toEqual(['a', 'b', 'c']);
    expect(flat.find((m) => m.id === 'c')).toHaveProperty('error.code', -32602);
  });

  it('refuses an initialize inside a batch', async () => {
    const response = await post(
      gw.url,
      [initializeBody(1), { jsonrpc: '2.0', id: 2, method: 'ping' }],
      auth(TOKEN_A),
    );
    expect(response.status).toBe(400);
  });
});

describe('hostile tool calls', () => {
  let attacker: TestClient;
  beforeAll(async () => {
    attacker = await connectClient(gw.url, { token: TOKEN_A });
    await attacker.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
  });
  afterAll(async () => {
    await attacker.close();
  });

  it.each([
    ['path traversal', 'skill_gateway-probe_read_../../../../etc/passwd'],
    ['an absolute path', '/etc/passwd'],
    ['unicode look-alike', 'skill_gateway‐probe_get_info'],
    ['a 10 KB name', `skill_${'x'.repeat(10_000)}`],
    ['an empty name', ''],
  ])('answers a tool name with %s as an unknown tool', async (_label, name) => {
    await expect(attacker.client.callTool({ name, arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it.each([
    ['args not an array', { args: 'rm -rf /' }, 'args'],
    ['args with a number', { args: ['ok', 7] }, 'args'],
    ['too many args', { args: Array.from({ length: 9 }, () => 'a') }, 'args'],
    ['args over their byte cap', { args: ['x'.repeat(2000)] }, 'args'],
    ['stdin not a string', { stdin: { a: 1 } }, 'stdin'],
    ['stdin over its cap', { stdin: 'x'.repeat(5000) }, 'stdin'],
    ['timeout as a string', { timeout: '10' }, 'timeout'],
    ['timeout over the max', { timeout: 10_000 }, 'timeout'],
    ['negative tail', { tail: -1 }, 'tail'],
  ])('refuses %s with -32602 naming the field', async (_label, args, field) => {
    const call = attacker.client.callTool({ name: 'skill_gateway-probe_run_echo-args_py', arguments: args });
    await expect(call).rejects.toMatchObject({ code: -32602, message: expect.stringContaining(field) });
  });

  it('drops an unknown argument of a run tool: it never reaches the script', async () => {
    const run = await attacker.client.callTool({
      name: 'skill_gateway-probe_run_echo-args_py',
      arguments: { args: ['plain'], shell: true, command: 'id' },
    });
    expect(run.isError, textOf(run)).not.toBe(true);
    expect(textOf(run)).toContain('plain');
    expect(textOf(run)).not.toMatch(/shell|uid=/);
  });

  it('ignores arguments on a read tool and a get_info tool: a path argument never redirects a read', async () => {
    const read = await attacker.client.callTool({
      name: 'skill_gateway-probe_read_notes_md',
      arguments: { path: '/etc/passwd' },
    });
    expect(textOf(read)).not.toContain('root:');
    expect(read.isError).not.toBe(true);
    const info = await attacker.client.callTool({
      name: 'skill_gateway-probe_get_info',
      arguments: { x: 1 },
    });
    expect(textOf(info)).toContain('skill_gateway-probe_read_notes_md');
  });

  it.each([
    ['an array', ['a']],
    ['null', null],
    ['a NUL byte in args', { args: ['a\u0000b'] }],
  ])('answers %s as arguments of a run tool with -32602 naming the field', async (_label, args) => {
    const response = await attacker.client
      .callTool({ name: 'skill_gateway-probe_run_env_py', arguments: args as Record<string, unknown> })
      .then(
        () => undefined,
        (error: { code: number; message: string }) => error,
      );
    expect(response?.code).toBe(-32602);
    expect(response?.message).not.toContain('MCP error -32602: MCP error');
  });

  it("caps one principal's concurrent scripts with a clear tool error while another principal's script runs", async () => {
    const slow = attacker.client.callTool({
      name: 'skill_gateway-probe_run_slow_py',
      arguments: { args: ['--seconds', '1'] },
    });
    // The first run holds the principal's only slot once it runs: wait for that, not for a clock.
    await waitFor(() => gw.gateway.runner.active > 0, { what: 'the slow script to run' });
    const second = await attacker.client.callTool({
      name: 'skill_gateway-probe_run_echo-args_py',
      arguments: { args: ['x'] },
    });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toContain('RUNNER_BUSY');
    expect(textOf(second)).toContain('max_concurrent_per_principal');
    const other = await healthy.client.callTool({
      name: 'skill_text-stats_run_stats_py',
      arguments: { stdin: 'other principal' },
    });
    expect(other.isError).toBeFalsy();
    expect((await slow).isError).toBeFalsy();
  });
});

describe('sessions and identities', () => {
  it('answers 404 to deleted, forged and foreign session ids, 401 to wrong tokens', async () => {
    const session = await openSession(gw.url, auth(TOKEN_A));
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    expect((await post(gw.url, list, { ...auth(TOKEN_B), 'mcp-session-id': session })).status).toBe(404);
    expect((await post(gw.url, list, { ...auth(TOKEN_A), 'mcp-session-id': `${session}x` })).status).toBe(
      404,
    );
    expect(
      (
        await post(gw.url, list, {
          authorization: 'Bearer attack-a-0123456789abcdeF',
          'mcp-session-id': session,
        })
      ).status,
    ).toBe(401);
    await fetch(gw.url, { method: 'DELETE', headers: { ...auth(TOKEN_A), 'mcp-session-id': session } });
    expect((await post(gw.url, list, { ...auth(TOKEN_A), 'mcp-session-id': session })).status).toBe(404);
  });

  it("a session flood ends the flooding principal's own idle sessions and keeps the other principal working", async () => {
    // At sessions.max_per_principal (20) each new session ends that principal's longest-idle one: the
    // principal never holds more than 20, and nobody else loses a session.
    const other = await openSession(gw.url, auth(TOKEN_B));
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await openSession(gw.url, auth(TOKEN_A)));
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const statusOf = async (id: string, token: string) => {
      const response = await post(gw.url, list, { ...auth(token), 'mcp-session-id': id });
      await response.body?.cancel();
      return response.status;
    };
    const statuses: number[] = [];
    for (const id of ids) statuses.push(await statusOf(id, TOKEN_A));
    expect(statuses.slice(-20)).toEqual(Array(20).fill(200));
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(404));
    expect(await statusOf(other, TOKEN_B)).toBe(200);
  });
});
