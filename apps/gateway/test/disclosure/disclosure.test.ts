import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

describe('namespaced disclosure', () => {
  it('lists only one get_info tool per skill at first, described by the skill description', async () => {
    const c = await connectClient(gw.url);
    const { tools } = await c.client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(7);
    for (const tool of tools) expect(tool.name).toMatch(/^skill_[a-z0-9_-]+_get_info$/);
    const stats = tools.find((t) => t.name === 'skill_text-stats_get_info');
    const entry = gw.gateway.catalogs.current.skills.get('text-stats');
    expect(stats?.description).toBe(entry?.skill.description);
    await c.close();
  });

  it('get_info returns the instructions and the exact tools, notifies once, then lists the unlocked tools', async () => {
    const c = await connectClient(gw.url);
    const before = await toolNames(c.client);
    const info = await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    expect(info.isError).toBeFalsy();
    const text = textOf(info);
    expect(text).not.toMatch(/^---/);
    expect(text).toContain('skill_text-stats_run_stats_py');
    expect(text).toContain('scripts/stats.py');
    expect(c.listChanged()).toBe(1);

    const after = await toolNames(c.client);
    expect(after).toContain('skill_text-stats_run_stats_py');
    expect(after).toContain('skill_text-stats_read_stats_py');
    expect(after.length).toBeGreaterThan(before.length);
    expect(after.filter((n) => n.startsWith('skill_log-triage_') && !n.endsWith('_get_info'))).toEqual([]);

    await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    expect(c.listChanged()).toBe(1);
    await c.close();
  });

  it('refuses a run tool of a locked skill with a tool error naming its get_info tool', async () => {
    const c = await connectClient(gw.url);
    const result = await c.client.callTool({
      name: 'skill_log-triage_run_triage_sh',
      arguments: { stdin: 'x' },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('skill_log-triage_get_info');
    await c.close();
  });

  it('answers an unknown tool with a JSON-RPC error, not a tool result', async () => {
    const c = await connectClient(gw.url);
    await expect(c.client.callTool({ name: 'skill_nope_get_info', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(c.client.callTool({ name: '../../etc/passwd', arguments: {} })).rejects.toMatchObject({
      code: -32602,
    });
    await c.close();
  });

  it('answers wrong argument types with a JSON-RPC invalid-params error naming the field', async () => {
    const c = await connectClient(gw.url);
    await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    await expect(
      c.client.callTool({ name: 'skill_text-stats_run_stats_py', arguments: { args: 'not-an-array' } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('args') });
    await expect(
      c.client.callTool({ name: 'skill_text-stats_run_stats_py', arguments: { timeout: -1 } }),
    ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('timeout') });
    // A key the tool does not know is dropped, not refused (hosts add their own: docs/decisions.md).
    const extra = await c.client.callTool({
      name: 'skill_text-stats_run_stats_py',
      arguments: { shell: 'sh -c', stdin: 'a b\n' },
    });
    expect(extra.isError, textOf(extra)).not.toBe(true);
    await c.close();
  });

  it('keeps unlocks per session: two sessions never see each other', async () => {
    const a = await connectClient(gw.url);
    const b = await connectClient(gw.url);
    await a.client.callTool({ name: 'skill_csv-tools_get_info', arguments: {} });
    expect((await toolNames(a.client)).some((n) => n.startsWith('skill_csv-tools_run_'))).toBe(true);
    expect((await toolNames(b.client)).some((n) => n.startsWith('skill_csv-tools_run_'))).toBe(false);
    expect(b.listChanged()).toBe(0);
    await a.close();
    await b.close();
  });

  it('carries the L1 summary in the initialize instructions', async () => {
    const c = await connectClient(gw.url);
    const instructions = c.client.getInstructions() ?? '';
    expect(instructions).toContain('<available_skills>');
    expect(instructions).toContain('text-stats');
    expect(instructions).toContain('skill_text-stats_get_info');
    await c.close();
  });
});
