import { join } from 'node:path';
import { loadConfig } from '@skillgate/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectClient,
  REPO_ROOT,
  startTestGateway,
  type TestGateway,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';

// The shipped default config must give every client in docs/clients.md a way to run a script, doing only
// what that client does: clients that re-list after list_changed may use unlocked tools; the others only
// ever call what their first tools/list held.
const RELISTS = [
  'claude-code',
  'gemini-cli-mcp-client',
  'skillgate-test',
  'claude-code (via mcp-remote 0.1.29)',
];
const NEVER_RELISTS = [
  'codex-mcp-client',
  'mcp-inspector-cli',
  'ai-sdk-mcp-client',
  'cursor-vscode',
  'claude-ai',
  'mcp',
  '@langchain/mcp-adapters',
  // Mastra and the OpenAI Agents SDK: the user's server key.
  'skillgate',
  // mcp-remote decorates the host's name; the host's profile still applies.
  'codex-mcp-client (via mcp-remote 0.1.29)',
  'cursor-vscode (via mcp-remote 0.1.29)',
];

describe('client profiles of the shipped default config', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    const { config } = await loadConfig({ file: join(REPO_ROOT, 'configs/skillgate.yaml'), env: {} });
    gw = await startTestGateway({
      clients: config.clients,
      skills: { disclosure: config.skills.disclosure },
    });
  });
  afterAll(async () => gw.close());

  it.each(NEVER_RELISTS)('%s runs a script using only its first tool list', async (name) => {
    const c = await connectClient(gw.url, { name });
    try {
      const first = await toolNames(c.client);
      expect(first).toContain('run_skill_script');
      await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
      expect(c.listChanged()).toBe(0);
      const run = await c.client.callTool({
        name: 'run_skill_script',
        arguments: { skill: 'text-stats', path: 'scripts/stats.py', stdin: 'a b c\n' },
      });
      expect(run.isError, textOf(run)).not.toBe(true);
      expect(await toolNames(c.client)).toEqual(first);
    } finally {
      await c.close();
    }
  });

  it.each(RELISTS)('%s unlocks a skill, re-lists and runs its script tool', async (name) => {
    const c = await connectClient(gw.url, { name });
    try {
      expect(await toolNames(c.client)).not.toContain('run_skill_script');
      await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
      expect(c.listChanged()).toBe(1);
      const run = (await toolNames(c.client)).find((n) => n.startsWith('skill_text-stats_run_'));
      expect(run).toBeDefined();
      const result = await c.client.callTool({ name: run ?? '', arguments: { stdin: 'a b c\n' } });
      expect(result.isError, textOf(result)).not.toBe(true);
    } finally {
      await c.close();
    }
  });
});
