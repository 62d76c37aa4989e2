import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../helpers/rawHttp.js';
import { EXAMPLES_ROOT, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

const MODERN = '2026-07-28';
const meta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernHeaders = (method: string) => ({ 'mcp-protocol-version': MODERN, 'mcp-method': method });

describe('one endpoint, both protocol eras', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ skills: { async_enabled: true } });
  });
  afterAll(async () => gw.close());

  it('a client pinned to 2026-07-28 lists the catalog surface and runs a script end to end', async () => {
    const c = await connectV2(gw.url, { era: 'modern' });
    try {
      expect(c.client.getProtocolEra()).toBe('modern');
      const { tools } = await c.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('skill_text-stats_get_info');
      expect(names).toContain('run_skill_script');
      expect(names).toContain('read_skill_file');
      expect(names.some((n) => n.startsWith('skill_text-stats_run_'))).toBe(false);
      const info = textOf(await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} }));
      expect(info).toContain('run_skill_script {"skill":"text-stats","path":"scripts/stats.py"');
      const run = await c.client.callTool({
        name: 'run_skill_script',
        arguments: { skill: 'text-stats', path: 'scripts/stats.py', stdin: 'one two three\n' },
      });
      expect(run.isError).not.toBe(true);
      expect((run.structuredContent as { exit_code: number }).exit_code).toBe(0);
      // The list never changes with what the caller did.
      expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(names);
      expect(c.listChanged()).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('an auto client lands on the modern era without a failed request', async () => {
    const c = await connectV2(gw.url, { era: 'auto' });
    try {
      expect(c.client.getProtocolEra()).toBe('modern');
      await c.client.listTools();
      expect(c.statuses.length).toBeGreaterThan(0);
      expect(c.statuses.filter((s) => s >= 400)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('a v2 client in legacy mode gets the namespaced session flow with list_changed', async () => {
    const c = await connectV2(gw.url, { era: 'legacy' });
    try {
      expect(c.client.getProtocolEra()).toBe('legacy');
      const before = (await c.client.listTools()).tools.map((t) => t.name);
      expect(before.every((n) => n.endsWith('_get_info'))).toBe(true);
      await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
      await waitFor(() => c.listChanged() === 1);
      const after = (await c.client.listTools()).tools.map((t) => t.name);
      expect(after.some((n) => n.startsWith('skill_text-stats_run_'))).toBe(true);
    } finally {
      await c.close();
    }
  });

  it.each(['modern', 'legacy'] as const)(
    'sends progress about once a second with the last output line while a script runs (%s)',
    async (era) => {
      const c = await connectV2(gw.url, { era });
      try {
        const tool =
          era === 'modern'
            ? {
                name: 'run_skill_script',
                arguments: { skill: 'gateway-probe', path: 'scripts/slow.py', args: ['--seconds', '2.5'] },
              }
            : { name: 'skill_gateway-probe_run_slow_py', arguments: { args: ['--seconds', '2.5'] } };
        if (era === 'legacy')
          await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
        const seen: Array<{ progress: number; message?: string }> = [];
        const result = await c.client.callTool(tool, { onprogress: (p) => seen.push(p) });
        expect(result.isError, textOf(result)).not.toBe(true);
        expect(seen.length).toBeGreaterThanOrEqual(1);
        expect(seen[0]?.message).toMatch(/^tick \d+$/);
        for (let i = 1; i < seen.length; i++)
          expect(seen[i]?.progress).toBeGreaterThan(seen[i - 1]?.progress ?? 0);
      } finally {
        await c.close();
      }
    },
  );

  it('answers server/discover with both cache fields and the server identity', async () => {
    const response = await post(
      gw.url,
      { jsonrpc: '2.0', id: 7, method: 'server/discover', params: { _meta: meta } },
      modernHeaders('server/discover'),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: number; result: Record<string, unknown> };
    expect(body.id).toBe(7);
    expect(body.result.supportedVersions).toContain(MODERN);
    expect(body.result.ttlMs).toBe(60_000);
    expect(body.result.cacheScope).toBe('public');
    expect(body.result.capabilities).toMatchObject({ tools: { listChanged: true } });
  });

  it('refuses an unknown revision with -32022 listing exactly what server/discover lists', async () => {
    const response = await post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/list',
        params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { code: number; data: { supported: string[]; requested: string } };
    };
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.requested).toBe('2099-01-01');
    const discover = await post(
      gw.url,
      { jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: meta } },
      modernHeaders('server/discover'),
    );
    const discovered = ((await discover.json()) as { result: { supportedVersions: string[] } }).result;
    // Conformance (sep-2575-server-unsupported-version-error): the two lists must agree.
    expect(body.error.data.supported).toEqual(discovered.supportedVersions);
    expect(body.error.data.supported).toContain(MODERN);
  });

  it('checks the standard headers of modern requests', async () => {
    const mismatch = await post(
      gw.url,
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: meta } },
      modernHeaders('tools/call'),
    );
    expect(mismatch.status).toBe(400);
    const missing = await post(gw.url, {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/list',
      params: { _meta: meta },
    });
    expect(missing.status).toBe(400);
  });

  it('lists tools in a deterministic order with ttlMs and cacheScope', async () => {
    const list = async () => {
      const response = await post(
        gw.url,
        { jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: meta } },
        modernHeaders('tools/list'),
      );
      return (await response.json()) as {
        result: { tools: Array<{ name: string }>; ttlMs: number; cacheScope: string };
      };
    };
    const first = await list();
    const second = await list();
    expect(first.result.tools.map((t) => t.name)).toEqual(second.result.tools.map((t) => t.name));
    expect(first.result.ttlMs).toBe(60_000);
    expect(first.result.cacheScope).toBe('public');
  });
});

describe('modern era: principals and reloads', () => {
  let gw: TestGateway;
  let root: string;
  const env = { ALL_TOKEN: 'all-secret-token-1', CSV_TOKEN: 'csv-secret-token-1' };
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'skillgate-eras-'));
    await cp(join(EXAMPLES_ROOT, 'csv-tools'), join(root, 'csv-tools'), { recursive: true });
    await cp(join(EXAMPLES_ROOT, 'text-stats'), join(root, 'text-stats'), { recursive: true });
    gw = await startTestGateway(
      {
        skills: { roots: [root] },
        auth: {
          tokens: [
            { name: 'all', token_env: 'ALL_TOKEN', skills: ['*'] },
            { name: 'csv', token_env: 'CSV_TOKEN', skills: ['csv-*'] },
          ],
        },
      },
      { ...process.env, ...env },
    );
  });
  afterAll(async () => {
    await gw.close();
    await rm(root, { recursive: true, force: true });
  });

  it('filters by principal and marks a filtered list private', async () => {
    const csv = await connectV2(gw.url, { era: 'modern', token: env.CSV_TOKEN });
    const all = await connectV2(gw.url, { era: 'modern', token: env.ALL_TOKEN });
    try {
      const csvNames = (await csv.client.listTools()).tools.map((t) => t.name);
      expect(csvNames).toContain('skill_csv-tools_get_info');
      expect(csvNames).not.toContain('skill_text-stats_get_info');
      const hidden = await csv.client.callTool({
        name: 'run_skill_script',
        arguments: { skill: 'text-stats', path: 'scripts/stats.py' },
      });
      expect(hidden.isError).toBe(true);
      expect(textOf(hidden)).toContain('Unknown skill "text-stats"');
      expect((await all.client.listTools()).tools.map((t) => t.name)).toContain('skill_text-stats_get_info');
      const raw = async (token: string) => {
        const response = await post(
          gw.url,
          { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } },
          { ...modernHeaders('tools/list'), authorization: `Bearer ${token}` },
        );
        return ((await response.json()) as { result: { cacheScope: string } }).result.cacheScope;
      };
      expect(await raw(env.CSV_TOKEN)).toBe('private');
      expect(await raw(env.ALL_TOKEN)).toBe('public');
    } finally {
      await csv.close();
      await all.close();
    }
  });

  it('delivers a reload to an open subscriptions/listen stream', async () => {
    const c = await connectV2(gw.url, { era: 'modern', token: env.ALL_TOKEN });
    try {
      const subscription = await c.client.listen({ toolsListChanged: true });
      expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
      await cp(join(EXAMPLES_ROOT, 'log-triage'), join(root, 'log-triage'), { recursive: true });
      await writeFile(join(root, 'log-triage', 'references', 'extra.md'), '# extra\n');
      await gw.gateway.catalogs.reload();
      await waitFor(() => c.listChanged() === 1);
      expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('skill_log-triage_get_info');
      await subscription.close();
    } finally {
      await c.close();
    }
  });
});

describe('the modern tools/list hot path', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ skills: { async_enabled: true } });
  });
  afterAll(async () => gw.close());

  it("answers exactly what the SDK's modern path answers", async () => {
    const list = async (params: Record<string, unknown>) => {
      const response = await post(
        gw.url,
        { jsonrpc: '2.0', id: 'same', method: 'tools/list', params },
        modernHeaders('tools/list'),
      );
      expect(response.status).toBe(200);
      return response.json();
    };
    const fast = await list({ _meta: meta });
    // A param the fast path does not know takes the SDK's path (which ignores it).
    const sdk = await list({ _meta: meta, detail: 'full' });
    expect(fast).toEqual(sdk);
  });

  it('leaves a request with a bad envelope to the SDK, which refuses it', async () => {
    const response = await post(
      gw.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
      },
      modernHeaders('tools/list'),
    );
    const body = (await response.json()) as { error?: { code: number } };
    expect(body.error?.code).toBe(-32602);
  });
});
