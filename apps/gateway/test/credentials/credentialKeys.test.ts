import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type HttpTestUpstream, startHttpUpstream } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import { connectClient, EXAMPLES_ROOT, REPO_ROOT, startTestGateway } from '../helpers/testGateway.js';

// docs/credentials.md, the store's keys: a key variable that is unset or not 32 bytes of base64 stops the start with
// one CONFIG_INVALID line naming credentials.keys; a stored record another key sealed is treated as absent,
// logged once, and the gateway still starts.

const TOKEN = `pat-${randomBytes(12).toString('hex')}`;
const SECRET = `acme-key-${randomBytes(12).toString('hex')}`;

let dir: string;
let upstream: HttpTestUpstream;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sg-keys-'));
  upstream = await startHttpUpstream();
});
afterAll(async () => {
  await upstream?.stop();
  await rm(dir, { recursive: true, force: true });
});

const serve = (config: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...cliArgs(), 'serve', '--config', config],
      { cwd: REPO_ROOT, env: { ...process.env, SKILLGATE_CONFIG: '', ...env } },
      (error, _stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number), stderr }),
    );
  });

const credentialsConfig = (storeFile: string) => ({
  server: { public_url: 'http://127.0.0.1:1' },
  auth: { tokens: [{ name: 'pat', token_env: 'T_PAT' }] },
  skills: { disclosure: 'eager', modern_disclosure: 'eager' },
  credentials: {
    store: 'file',
    file: storeFile,
    keys: [{ id: 'k1', env: 'SG_TEST_KEY' }],
    providers: [{ id: 'acme', secret: { label: 'ACME API key' } }],
  },
  upstreams: [{ id: 'acme', url: upstream.url, auth: { provider: 'acme', header: 'X-API-Key' } }],
});

describe.concurrent('a credentials key that cannot be used stops the start', { timeout: 60_000 }, () => {
  it.each([
    ['unset', undefined, 'SG_TEST_KEY is not set'],
    ['16 bytes', randomBytes(16).toString('base64'), 'is not 32 bytes of base64'],
    ['not base64', 'not a key at all, really, not one', 'is not 32 bytes of base64'],
  ])('%s: one CONFIG_INVALID line naming credentials.keys, exit 1', async (label, key, reason) => {
    const file = join(dir, `${label.replace(/\W/g, '-')}.json`);
    await writeFile(
      file,
      JSON.stringify({ ...credentialsConfig(join(dir, 'unused.json')), skills: { roots: [EXAMPLES_ROOT] } }),
    );
    const outcome = await serve(file, { T_PAT: TOKEN, SG_TEST_KEY: key });
    expect(outcome.code).toBe(1);
    const lines = outcome.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^skillgate: /);
    expect(lines[0]).toContain('CONFIG_INVALID');
    expect(lines[0]).toContain('credentials.keys');
    expect(lines[0]).toContain(reason);
    expect(outcome.stderr).not.toMatch(/\n\s+at /);
    if (key !== undefined) expect(outcome.stderr).not.toContain(key);
  });
});

describe('a stored record another key sealed', () => {
  it('is treated as absent and logged once; the gateway starts and asks to connect again', async () => {
    const storeFile = join(dir, 'store.json');
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const config = { ...credentialsConfig(storeFile), server: { public_url: publicUrl } };
    const env = (key: string) => ({ ...process.env, T_PAT: TOKEN, SG_TEST_KEY: key });
    const tool = 'skill_acme_call_echo';

    const first = await startTestGateway(config, env(randomBytes(32).toString('base64')), undefined, {
      port,
    });
    const pat = await connectClient(first.url, { token: TOKEN });
    const asked = await pat.client.callTool({ name: tool, arguments: { text: 'hi' } });
    const link = String((asked.structuredContent as { url?: string } | undefined)?.url);
    const done = await new ConnectBrowser(first.base).connectSecretWithToken(link, TOKEN, SECRET);
    expect(done.status).toBe(200);
    expect((await pat.client.callTool({ name: tool, arguments: { text: 'hi' } })).isError).not.toBe(true);
    await pat.close();
    await first.close();

    // Another key: the record does not open.
    const lines: string[] = [];
    const second = await startTestGateway(config, env(randomBytes(32).toString('base64')), lines, { port });
    try {
      const again = await connectClient(second.url, { token: TOKEN });
      for (let i = 0; i < 3; i++) {
        const result = await again.client.callTool({ name: tool, arguments: { text: 'hi' } });
        expect(result.structuredContent).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });
      }
      await again.close();
      const unreadable = lines.filter((line) => line.includes('RECORD_UNREADABLE'));
      expect(unreadable).toHaveLength(1);
      expect(lines.join('\n')).not.toContain(SECRET);
    } finally {
      await second.close();
    }
  });
});
