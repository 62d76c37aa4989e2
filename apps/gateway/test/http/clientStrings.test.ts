import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRedisConnection, type RedisConnection } from '@skillgate/state';
import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initializeBody, post } from '../helpers/rawHttp.js';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// A tenant that sends huge client strings: the session records, the log lines and the progress
// notifications it causes stay small, a full Redis is reported as full, and another tenant goes on.
const TOKEN_A = 'strings-a-0123456789abcdef';
const TOKEN_B = 'strings-b-0123456789abcdef';
const PREFIX = 'dos-strings:';
const MAX_CHARS = 256;
/** A 900 KB client name: under the 1 MiB body limit, so it reaches the gateway. */
const HUGE = 'n'.repeat(900_000);

let redis: RedisServer;
let peek: RedisConnection;
let gw: TestGateway;
const logLines: string[] = [];
beforeAll(async () => {
  redis = await startRedisServer({ appendOnly: false });
  peek = createRedisConnection({ url: redis.url, keyPrefix: PREFIX });
  await peek.waitUntilReady(5000);
  gw = await startTestGateway(
    {
      state: { backend: 'redis', key_prefix: PREFIX },
      auth: {
        tokens: [
          { name: 'tenant-a', token_env: 'STRINGS_TOKEN_A' },
          { name: 'tenant-b', token_env: 'STRINGS_TOKEN_B' },
        ],
      },
      sessions: { max_per_principal: 20 },
      rate_limit: { requests_per_second: 0 },
    },
    { ...process.env, SKILLGATE_REDIS_URL: redis.url, STRINGS_TOKEN_A: TOKEN_A, STRINGS_TOKEN_B: TOKEN_B },
    logLines,
  );
});
afterAll(async () => {
  await gw.close();
  await peek.close();
  await redis.close();
});

const auth = (token: string) => ({ authorization: `Bearer ${token}` });

/** Redis with `headroomBytes` of room above what it uses now. */
async function limitRedisMemory(headroomBytes: number): Promise<void> {
  const info = await peek.run((r) => r.info('memory'));
  const used = Number(/used_memory:(\d+)/.exec(info)?.[1]);
  await peek.run((r) => r.config('SET', 'maxmemory', String(used + headroomBytes)));
  await peek.run((r) => r.config('SET', 'maxmemory-policy', 'noeviction'));
}

describe('a 1 MB clientInfo in every session', () => {
  it("stores and logs it cut, so one tenant's sessions end at its cap, not at Redis' maxmemory", async () => {
    await limitRedisMemory(4 * 1024 * 1024);
    const statuses: number[] = [];
    const sessions: string[] = [];
    for (let i = 0; i < 25; i++) {
      const body = initializeBody(1);
      body.params.clientInfo = { name: HUGE, version: '1' };
      const response = await post(gw.url, body, auth(TOKEN_A));
      statuses.push(response.status);
      const id = response.headers.get('mcp-session-id');
      if (id !== null) sessions.push(id);
      await response.body?.cancel();
    }
    // The per-principal cap (20) bounds what the attack holds: past it each new session closes that
    // principal's longest-idle one (docs/limits.md), so Redis never fills (no 503 for anyone).
    expect(statuses.every((s) => s === 200)).toBe(true);
    const held = await Promise.all(
      sessions.map(async (id) => (await peek.run((r) => r.exists(`${PREFIX}session:${id}`))) === 1),
    );
    expect(held.filter(Boolean)).toHaveLength(20);
    expect(held.slice(0, 5)).toEqual([false, false, false, false, false]);
    const stored = JSON.parse((await peek.run((r) => r.get(`${PREFIX}session:${sessions[24]}`))) ?? '{}');
    expect(stored.client.name.length).toBeLessThan(MAX_CHARS + 40);
    expect(stored.client.name).toMatch(/^n+…\[\d+ more chars\]$/);
    const opened = logLines.filter((line) => line.includes('"session opened"'));
    expect(opened.length).toBeGreaterThanOrEqual(20);
    for (const line of opened) expect(line.length).toBeLessThan(2048);

    // The other tenant still opens a session and unlocks a skill (a write to the shared store).
    const healthy = await connectClient(gw.url, { token: TOKEN_B });
    const info = await healthy.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    expect(info.isError).toBeFalsy();
    await healthy.close();
    for (const id of sessions) {
      await fetch(gw.url, { method: 'DELETE', headers: { ...auth(TOKEN_A), 'mcp-session-id': id } });
    }
  });
});

describe('Redis out of memory', () => {
  it('is answered STATE_FULL, said as such, for a new session and for an unlock, and heals when freed', async () => {
    const healthy = await connectClient(gw.url, { token: TOKEN_B });
    // Another tenant of the same Redis, or a maxmemory set too low: every write is refused with OOM.
    await peek.run((r) => r.config('SET', 'maxmemory', '1'));
    const refused = await post(gw.url, initializeBody(), auth(TOKEN_B));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    const body = (await refused.json()) as { error: { message: string; data: { reason: string } } };
    expect(body.error.data.reason).toBe('STATE_FULL');
    expect(body.error.message).toContain('maxmemory');
    await expect(
      healthy.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} }),
    ).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('maxmemory') });
    expect(logLines.some((line) => line.includes('"level":50') && line.includes('maxmemory'))).toBe(true);

    await limitRedisMemory(4 * 1024 * 1024);
    const info = await healthy.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    expect(info.isError).toBeFalsy();
    await healthy.close();
  });
});

describe('a huge progressToken', () => {
  it('is refused with -32602 instead of being echoed every second; a normal one is served', async () => {
    await limitRedisMemory(64 * 1024 * 1024);
    const attacker = await connectClient(gw.url, { token: TOKEN_A });
    await attacker.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const call = attacker.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'skill_gateway-probe_run_slow_py',
          arguments: { args: ['--seconds', '3'] },
          _meta: { progressToken: 'p'.repeat(100_000) },
        },
      },
      CallToolResultSchema,
    );
    await expect(call).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('max_client_string_chars'),
    });
    await attacker.close();

    const healthy = await connectClient(gw.url, { token: TOKEN_B });
    await healthy.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    const result = await healthy.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'skill_text-stats_run_stats_py',
          arguments: { stdin: 'one two' },
          _meta: { progressToken: 'healthy-progress-1' },
        },
      },
      CallToolResultSchema,
    );
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('2');
    await healthy.close();
  });
});
