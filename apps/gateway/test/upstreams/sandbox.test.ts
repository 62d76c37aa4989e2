import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOSTILE_PROCESS_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServedProcess, serveProcess } from '../helpers/serveProcess.js';
import { connectClient, EXAMPLES_ROOT, textOf } from '../helpers/testGateway.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const HOSTILE = HOSTILE_PROCESS_UPSTREAM;
const ALICE = 'alice-token-0123456789-abcdefghij';
const BOB = 'bob-token-0123456789-abcdefghijkl';
const OTHER_KEY = 'other-upstream-credential-5f1e2d3c';
const FILE_SECRET = 'a-secret-only-the-gateway-user-can-read';

let work: string;
let secretFile: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-upstream-sandbox-'));
  secretFile = join(work, 'token.txt');
  await writeFile(secretFile, FILE_SECRET);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});
// Known from the moment it is spawned, so a test that times out before it listens still ends it.
let spawned: ChildProcess | undefined;
afterEach(async () => {
  const proc = spawned;
  spawned = undefined;
  if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
});

/**
 * `skillgate serve` as a real process whose own environment holds the tokens and the other upstream's
 * credential, as a deployment's would (what /proc/<gateway pid>/environ shows).
 */
const serve = async (sandbox: 'bwrap' | 'off'): Promise<ServedProcess> => {
  const config = {
    server: { host: '127.0.0.1', port: 0 },
    skills: { roots: [EXAMPLES_ROOT] },
    logging: { level: 'info', format: 'json' },
    scripts: { sandbox },
    upstreams: [
      { id: 'spy', command: [process.execPath, HOSTILE, 'spy'] },
      // Another upstream with a credential of its own, which the spy must not reach either.
      { id: 'other', command: [process.execPath, HOSTILE, 'spy'], env_from: { OTHER_KEY: 'T_OTHER_KEY' } },
      { id: 'everything', command: [process.execPath, EVERYTHING, 'stdio'], tools: ['echo', 'get-env'] },
    ],
    auth: {
      tokens: [
        { name: 'alice', token_env: 'T_ALICE', skills: ['*'] },
        { name: 'bob', token_env: 'T_BOB', skills: ['*'] },
      ],
    },
    clients: [{ match: { principal: '*' }, disclosure: 'eager' }],
  };
  const file = join(work, `skillgate-${sandbox}.yaml`);
  await writeFile(file, JSON.stringify(config));
  return serveProcess(file, {
    env: { ...process.env, T_ALICE: ALICE, T_BOB: BOB, T_OTHER_KEY: OTHER_KEY },
    spawned: (proc) => {
      spawned = proc;
    },
  });
};

// The hostile upstream answers base64, past the gateway's redaction of configured secrets.
const decoded = (base64: string): string => Buffer.from(base64, 'base64').toString('utf8');

// Host pids of the processes running the hostile upstream (bwrap's included: its argv names the file too).
const sandboxedProcesses = (): string[] =>
  readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(HOSTILE);
    } catch {
      return false;
    }
  });

// Every upstream connected: its tools are listed.
const connected = async (url: URL): Promise<void> => {
  const c = await connectClient(url, { token: BOB });
  try {
    await waitFor(
      async () => {
        const names = (await c.client.listTools()).tools.map((t) => t.name);
        return ['spy', 'other', 'everything'].every((id) => names.includes(`skill_${id}_call_echo`));
      },
      { what: 'the upstreams connected', timeoutMs: 30_000 },
    );
  } finally {
    await c.close();
  }
};

describe('stdio upstreams run in the script sandbox', () => {
  it("a hostile stdio upstream cannot read the gateway's environment (/proc/<gateway pid>/environ), tokens, another upstream's credential or the gateway user's files; a published server still works and another tenant is served", async () => {
    const { url, proc } = await serve('bwrap');
    await connected(url);
    const spy = await connectClient(url, { token: ALICE });
    const bob = await connectClient(url, { token: BOB });
    try {
      const call = (name: string, args: Record<string, unknown> = {}) =>
        spy.client.callTool({ name, arguments: args }).then(textOf);
      const spied = (name: string, args: Record<string, unknown> = {}) => call(name, args).then(decoded);
      const environ = await spied('skill_spy_call_read_file', { path: `/proc/${proc.pid}/environ` });
      expect(environ).toMatch(/^unreadable/);
      const scanned = await spied('skill_spy_call_scan_environ');
      for (const secret of [ALICE, BOB, OTHER_KEY]) expect(scanned).not.toContain(secret);
      expect(await spied('skill_spy_call_read_file', { path: secretFile })).toMatch(/^unreadable/);
      // The reference server runs sandboxed too: its home is its private /tmp, and it answers.
      const everythingEnv = await call('skill_everything_call_get-env');
      expect(everythingEnv).toContain('"HOME": "/tmp"');
      expect(everythingEnv).not.toContain(ALICE);
      // The other upstream still has its own credential, and the other tenant is served meanwhile.
      const other = await bob.client.callTool({ name: 'skill_other_call_scan_environ', arguments: {} });
      expect(decoded(textOf(other))).toContain(OTHER_KEY);
      const echoed = await bob.client.callTool({
        name: 'skill_everything_call_echo',
        arguments: { message: 'hi' },
      });
      expect(textOf(echoed)).toBe('Echo: hi');
    } finally {
      await spy.close();
      await bob.close();
    }
    // Sandboxed servers (bwrap and everything in it) still never outlive a SIGKILLed gateway.
    expect(sandboxedProcesses().length).toBeGreaterThan(0);
    proc.kill('SIGKILL');
    await waitFor(() => sandboxedProcesses().length === 0, {
      what: 'no upstream process left',
      timeoutMs: 30_000,
    });
  });

  it('scripts.sandbox: off warns at start-up of exactly what a script or stdio upstream can then read, which it can', async () => {
    const { url, proc, output } = await serve('off');
    const warning = output()
      .split('\n')
      .find((line) => line.includes('WITHOUT A SANDBOX'));
    expect(warning).toBeDefined();
    expect(warning).toContain('"level":40');
    for (const part of [
      '/proc/<gateway pid>/environ',
      'every bearer token',
      'upstream credential',
      'token files',
      'network',
    ])
      expect(warning).toContain(part);
    await connected(url);
    // The warning is true: unsandboxed, the spy reads the gateway's tokens.
    const spy = await connectClient(url, { token: ALICE });
    try {
      const environ = await spy.client.callTool({
        name: 'skill_spy_call_read_file',
        arguments: { path: `/proc/${proc.pid}/environ` },
      });
      expect(decoded(textOf(environ))).toContain(ALICE);
    } finally {
      await spy.close();
    }
  });
});
