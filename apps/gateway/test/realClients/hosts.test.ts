import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { loadConfig } from '@skillgate/config';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.js';
import { cliArgs } from '../helpers/cliCommand.js';
import { openSession, post } from '../helpers/rawHttp.js';
import {
  connectClient,
  EXAMPLES_ROOT,
  REPO_ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

// What real agent hosts do to a gateway (docs/clients.md): they add argument keys, rename tools, keep only
// the first 2 KB of the instructions, build the model's next request from the list they hold, and open
// sessions they never close.

const SHIPPED = join(REPO_ROOT, 'configs/skillgate.yaml');

/** The gateway with the shipped default config (its own roots and profiles), on a free port. */
async function shippedGateway(overrides: Record<string, unknown> = {}): Promise<TestGateway> {
  const { config } = await loadConfig({ file: SHIPPED, env: {} });
  return startTestGateway({
    clients: config.clients,
    skills: {
      disclosure: config.skills.disclosure,
      max_instructions_chars: config.skills.max_instructions_chars,
    },
    sessions: {
      relist_wait_ms: config.sessions.relist_wait_ms,
      relist_grace_ms: config.sessions.relist_grace_ms,
    },
    ...overrides,
  });
}

const metric = async (gw: TestGateway, series: string): Promise<number> => {
  const text = await (await fetch(`${gw.base}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? 0 : Number(line.slice(series.length).trim());
};

describe('host-added argument keys', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await shippedGateway();
  });
  afterAll(async () => gw.close());

  it("Gemini CLI's wait_for_previous on a run tool is accepted and ignored; the caps still hold", async () => {
    const c = await connectClient(gw.url, { name: 'gemini-cli-mcp-client' });
    try {
      await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: { wait_for_previous: true } });
      const run = (await toolNames(c.client)).find((n) => n.startsWith('skill_text-stats_run_')) ?? '';
      const result = await c.client.callTool({
        name: run,
        arguments: { stdin: 'a b c\n', wait_for_previous: true },
      });
      expect(result.isError, textOf(result)).not.toBe(true);
      expect(textOf(result)).toContain('3');
      await expect(
        c.client.callTool({ name: run, arguments: { timeout: 10_000, wait_for_previous: true } }),
      ).rejects.toThrow(/timeout/);
    } finally {
      await c.close();
    }
  });

  it('run_skill_script (catalog) accepts an added key too', async () => {
    const c = await connectClient(gw.url, { name: 'codex-mcp-client' });
    try {
      const result = await c.client.callTool({
        name: 'run_skill_script',
        arguments: {
          skill: 'text-stats',
          path: 'scripts/stats.py',
          stdin: 'a b\n',
          wait_for_previous: false,
        },
      });
      expect(result.isError, textOf(result)).not.toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe('the turn after get_info', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await shippedGateway();
  });
  afterAll(async () => gw.close());

  it('a host that re-lists on list_changed holds the unlocked tools when the get_info result arrives', async () => {
    let held: string[] = [];
    const client = new Client(
      { name: 'gemini-cli-mcp-client', version: '0.61.0' },
      {
        listChanged: {
          tools: {
            onChanged: (_error, tools) => {
              held = (tools ?? []).map((t) => t.name);
            },
          },
        },
      },
    );
    await client.connect(new StreamableHTTPClientTransport(gw.url));
    try {
      held = (await client.listTools()).tools.map((t) => t.name);
      expect(held.some((n) => n.startsWith('skill_text-stats_run_'))).toBe(false);
      await client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
      // What the host builds its model's next request from, at the moment get_info's result is in.
      expect(held.some((n) => n.startsWith('skill_text-stats_run_'))).toBe(true);
      expect(await metric(gw, 'skillgate_get_info_holds_total{outcome="relisted"}')).toBeGreaterThanOrEqual(
        1,
      );
    } finally {
      await client.close();
    }
  });

  it('a session that let the bound pass without re-listing is not held again', async () => {
    const before = await metric(gw, 'skillgate_get_info_holds_total{outcome="timeout"}');
    const c = await connectClient(gw.url, { name: 'some-agent' });
    try {
      await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
      expect(await metric(gw, 'skillgate_get_info_holds_total{outcome="timeout"}')).toBe(before + 1);
      await c.client.callTool({ name: 'skill_csv-tools_get_info', arguments: {} });
      expect(c.listChanged()).toBe(2);
      expect(await metric(gw, 'skillgate_get_info_holds_total{outcome="timeout"}')).toBe(before + 1);
      // Its list still grows with what it unlocked, for when it does list again.
      const names = await toolNames(c.client);
      expect(names.some((n) => n.startsWith('skill_csv-tools_'))).toBe(true);
    } finally {
      await c.close();
    }
  });
});

describe('instructions and names as hosts show them', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await shippedGateway();
  });
  afterAll(async () => gw.close());

  it('fit the 2,048 characters hosts keep: how to use the gateway, then every bundled skill', async () => {
    const c = await connectClient(gw.url, { name: 'claude-code' });
    try {
      const instructions = c.client.getInstructions() ?? '';
      expect(instructions.length).toBeLessThanOrEqual(2048);
      expect(instructions.startsWith('skillgate serves Agent Skills.')).toBe(true);
      for (const name of ['brand-assets', 'csv-tools', 'dataset-profile', 'log-triage', 'release-notes']) {
        expect(instructions).toContain(`<name>${name}</name>`);
      }
      expect(instructions).toContain('<name>repo-hygiene</name>');
      expect(instructions).toContain('<name>text-stats</name>');
      expect(instructions).toContain('mcp__skillgate__');
    } finally {
      await c.close();
    }
  });

  it('get_info tells the model its host may prefix the tool names', async () => {
    for (const name of ['claude-code', 'codex-mcp-client']) {
      const c = await connectClient(gw.url, { name });
      try {
        const info = await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
        expect(textOf(info)).toContain('mcp__skillgate__');
        expect(textOf(info)).not.toContain('exact name');
      } finally {
        await c.close();
      }
    }
  });
});

describe('sessions nobody closes', () => {
  it("at sessions.max_per_principal a new session closes the principal's longest-idle one", async () => {
    const lines: string[] = [];
    const gw = await startTestGateway({ sessions: { max_per_principal: 3 } }, process.env, lines);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await openSession(gw.url));
      const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
      const statuses: number[] = [];
      for (const id of ids) {
        const response = await post(gw.url, list, { 'mcp-session-id': id });
        await response.body?.cancel();
        statuses.push(response.status);
      }
      expect(statuses).toEqual([404, 404, 200, 200, 200]);
      expect(await metric(gw, 'skillgate_sessions_evicted_total')).toBe(2);
      await waitFor(() => lines.filter((l) => l.includes('longest idle')).length === 2, {
        what: 'one log line per closed session',
      });
      expect(lines.find((l) => l.includes('longest idle'))).toContain(ids[0]);
    } finally {
      await gw.close();
    }
  });
});

describe('skill roots that do not exist', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'skillgate-roots-'));
    await writeFile(join(dir, 'a-file'), 'not a folder');
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('fail start-up, naming the root (missing, or a file)', async () => {
    const { config } = await loadConfig({ file: SHIPPED, env: {} });
    for (const root of [join(dir, 'missing'), join(dir, 'a-file')]) {
      const copied = { ...config, skills: { ...config.skills, roots: [EXAMPLES_ROOT, root] } };
      await expect(createGateway(copied, { env: {} })).rejects.toMatchObject({
        code: 'CONFIG_INVALID',
        issues: [{ path: 'skills.roots[1]', message: expect.stringContaining(root) }],
      });
    }
  });

  it('the shipped config copied elsewhere: serve exits 1 naming the root it cannot find', async () => {
    const copy = join(dir, 'skillgate.yaml');
    await copyFile(SHIPPED, copy);
    const outcome = await promisify(execFile)(
      process.execPath,
      [...cliArgs(), 'serve', '--config', copy],
      // On a regression it would serve instead of exiting: killed then, so no process outlives the test.
      { cwd: REPO_ROOT, env: { ...process.env, SKILLGATE_CONFIG: '' }, timeout: 15_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(
      `skills.roots[0]: ${join(dir, '..', 'examples', 'skills')} does not exist`,
    );
  });

  it('with skills.allow_missing_roots start, and /readyz names the missing root', async () => {
    const missing = join(dir, 'missing');
    const gw = await startTestGateway({ skills: { roots: [missing], allow_missing_roots: true } });
    try {
      const ready = (await (await fetch(`${gw.base}/readyz`)).json()) as Record<string, unknown>;
      expect(ready).toMatchObject({ status: 'ready', skills: 0, missing_roots: [missing] });
    } finally {
      await gw.close();
    }
  });
});
