import { type ChildProcess, execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveProcess } from '../helpers/serveProcess.js';
import { REPO_ROOT } from '../helpers/testGateway.js';

// Real clients as a new user installs them from npm (pinned in apps/gateway/package.json, versions that run on
// Node 20: docs/clients.md), each a headless script in test/realClients/, against `skillgate serve` with the
// shipped default config. Every one must run a skill script and read a reference.
const SCRIPTS = join(REPO_ROOT, 'apps/gateway/test/realClients');
const CLIENTS: ReadonlyArray<[label: string, script: string]> = [
  ['the v1 SDK client (2025-era, re-lists: namespaced)', 'sdkV1.mjs'],
  ['the v2 SDK client in auto mode (2026-07-28: catalog)', 'sdkV2.mjs'],
  ['LangChain @langchain/mcp-adapters (catalog by its name)', 'langchain.mjs'],
  ['the AI SDK @ai-sdk/mcp (catalog by its name)', 'aiSdk.mjs'],
  ['mcp-remote in front of a re-listing host (namespaced, by the host name it decorates)', 'mcpRemote.mjs'],
];

describe('real clients from npm against the shipped default config', () => {
  let proc: ChildProcess;
  let url: URL;
  beforeAll(async () => {
    ({ proc, url } = await serveProcess(join(REPO_ROOT, 'configs/skillgate.yaml'), {
      env: { ...process.env, SKILLGATE_PORT: '0' },
    }));
  }, 60_000);
  afterAll(() => {
    proc.kill('SIGKILL');
  });

  it.each(CLIENTS)('%s runs a script and reads a reference', async (_label, script) => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(SCRIPTS, script), url.href], {
      cwd: SCRIPTS,
      timeout: 60_000,
    });
    const { run, read } = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      run?: string;
      read?: string;
    };
    // stats.py counted the three words it was given (however deep the client nests its result's JSON);
    // usage.md is the skill's reference.
    expect(run?.replaceAll('\\', '')).toContain('"words": 3');
    expect(read).toContain('text-stats: usage and edge cases');
  });
});
