import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectClient,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

let gw: TestGateway | undefined;

/** Polls skill_get_async_status until the job leaves `running` (about 5 s at most); returns its state. */
async function settledState(client: Client, jobId: string): Promise<string> {
  let state = 'running';
  await waitFor(
    async () => {
      const status = await client.callTool({ name: 'skill_get_async_status', arguments: { job_id: jobId } });
      state = (status.structuredContent as { state: string }).state;
      return state !== 'running';
    },
    { timeoutMs: 5000, intervalMs: 100, what: `job ${jobId} to settle` },
  ).catch(() => {});
  return state;
}
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('async jobs', () => {
  it('has no async tools unless async is enabled in the YAML', async () => {
    gw = await startTestGateway({ skills: { async_enabled: false } });
    const c = await connectClient(gw.url);
    await c.client.callTool({ name: 'skill_dataset-profile_get_info', arguments: {} });
    const names = await toolNames(c.client);
    expect(names.some((n) => n.includes('_run_async_'))).toBe(false);
    expect(names).not.toContain('skill_get_async_status');
    await expect(
      c.client.callTool({ name: 'skill_get_async_status', arguments: { job_id: 'x' } }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await c.close();
  });

  it('starts a job, shows live output, finishes, and hides the job from other sessions', async () => {
    gw = await startTestGateway({ skills: { async_enabled: true } });
    const c = await connectClient(gw.url);
    await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const names = await toolNames(c.client);
    expect(names).toContain('skill_gateway-probe_run_async_slow_py');
    expect(names).toContain('skill_get_async_status');
    expect(names).toContain('skill_cancel_async');

    const started = await c.client.callTool({
      name: 'skill_gateway-probe_run_async_slow_py',
      arguments: { args: ['--seconds', '2.5'] },
    });
    const jobId = (started.structuredContent as { job_id: string }).job_id;
    expect(jobId).toMatch(/^[A-Za-z0-9_-]{20,}$/);

    // Wait for the first output (not a fixed time: a loaded machine may start python late).
    let running = await c.client.callTool({ name: 'skill_get_async_status', arguments: { job_id: jobId } });
    await waitFor(
      async () => {
        running = await c.client.callTool({ name: 'skill_get_async_status', arguments: { job_id: jobId } });
        return (running.structuredContent as { stdout: string }).stdout.includes('tick');
      },
      { timeoutMs: 10_000, what: 'the first output of the job' },
    );
    expect(running.structuredContent).toMatchObject({ state: 'running' });
    expect((running.structuredContent as { stdout: string }).stdout).toContain('tick');

    const other = await connectClient(gw.url);
    await other.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const foreign = await other.client.callTool({
      name: 'skill_get_async_status',
      arguments: { job_id: jobId },
    });
    expect(foreign.isError).toBe(true);

    const state = await settledState(c.client, jobId);
    expect(state).toBe('exited');
    await other.close();
    await c.close();
  });

  it('cancels a running job', async () => {
    gw = await startTestGateway({ skills: { async_enabled: true } });
    const c = await connectClient(gw.url);
    await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
    const started = await c.client.callTool({ name: 'skill_gateway-probe_run_async_hang_sh', arguments: {} });
    const jobId = (started.structuredContent as { job_id: string }).job_id;
    await c.client.callTool({ name: 'skill_cancel_async', arguments: { job_id: jobId } });
    const state = await settledState(c.client, jobId);
    expect(state).toBe('cancelled');
    await c.close();
  });
});

describe('disclosure modes', () => {
  it('universal: three fixed tools, the skill list in load_skill, files read and scripts run by path', async () => {
    gw = await startTestGateway({ skills: { disclosure: 'universal' } });
    const c = await connectClient(gw.url);
    const { tools } = await c.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'list_skill_files',
      'load_skill',
      'read_skill_file',
      'run_skill_script',
    ]);
    expect(tools.find((t) => t.name === 'load_skill')?.description).toContain('text-stats');
    expect(c.client.getInstructions()).toContain('<name>text-stats</name>');
    expect(c.client.getInstructions()).not.toContain('_get_info');
    const loaded = await c.client.callTool({ name: 'load_skill', arguments: { name: 'text-stats' } });
    expect(textOf(loaded)).toContain('scripts/stats.py');
    expect(c.listChanged()).toBe(0);
    const ran = await c.client.callTool({
      name: 'run_skill_script',
      arguments: { skill: 'text-stats', path: 'scripts/stats.py', stdin: 'a b a' },
    });
    expect(JSON.parse((ran.structuredContent as { stdout: string }).stdout)).toMatchObject({ words: 3 });
    const traversal = await c.client.callTool({
      name: 'read_skill_file',
      arguments: { skill: 'text-stats', path: '../log-triage/SKILL.md' },
    });
    expect(traversal.isError).toBe(true);
    await expect(
      c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} }),
    ).rejects.toMatchObject({ code: -32602 });
    await c.close();
  });

  it('eager: every tool of every skill from the start', async () => {
    gw = await startTestGateway({ skills: { disclosure: 'eager' } });
    const c = await connectClient(gw.url);
    const names = await toolNames(c.client);
    expect(names).toContain('skill_text-stats_run_stats_py');
    expect(names).toContain('skill_brand-assets_read_logo_png');
    const ran = await c.client.callTool({ name: 'skill_text-stats_run_stats_py', arguments: { stdin: 'x' } });
    expect(ran.isError).toBeFalsy();
    await c.close();
  });

  it('client profiles pick the mode by clientInfo.name', async () => {
    gw = await startTestGateway({ clients: [{ match: { name: 'Legacy*' }, disclosure: 'eager' }] });
    const legacy = await connectClient(gw.url, { name: 'Legacy Desktop' });
    const modern = await connectClient(gw.url, { name: 'modern-agent' });
    expect(await toolNames(legacy.client)).toContain('skill_text-stats_run_stats_py');
    expect(await toolNames(modern.client)).not.toContain('skill_text-stats_run_stats_py');
    await legacy.close();
    await modern.close();
  });

  it('a client that never re-lists can still use a skill from the get_info text alone', async () => {
    gw = await startTestGateway();
    const c = await connectClient(gw.url);
    const info = textOf(await c.client.callTool({ name: 'skill_log-triage_get_info', arguments: {} }));
    const name = /skill_log-triage_run_[a-z0-9_-]+/.exec(info)?.[0];
    expect(name).toBeDefined();
    const result = await c.client.callTool({
      name: name ?? '',
      arguments: { stdin: 'ERROR disk full\nINFO ok\n' },
    });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { stdout: string }).stdout).toContain('ERROR');
    await c.close();
  });
});
