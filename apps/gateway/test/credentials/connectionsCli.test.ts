import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthorizationServer,
  freePort,
  type HttpTestUpstream,
  startAuthorizationServer,
  startHttpUpstream,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import { ConnectBrowser } from '../helpers/connectBrowser.js';
import {
  connectClient,
  EXAMPLES_ROOT,
  REPO_ROOT,
  startTestGateway,
  type TestGateway,
} from '../helpers/testGateway.js';

// docs/credentials.md, `skillgate connections`: the real CLI opens the gateway's store with the same config and keys,
// lists every principal's connections (never a value) and deletes one with --revoke, revoking it at the
// provider where the provider offers RFC 7009.

const ALICE = `alice-${randomBytes(12).toString('hex')}`;
const BOB = `bob-${randomBytes(12).toString('hex')}`;
const API_KEY = `key-${randomBytes(12).toString('hex')}`;

let server: AuthorizationServer;
let upstream: HttpTestUpstream;
let gw: TestGateway;
let configFile: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  server = await startAuthorizationServer({
    clients: [
      { id: 'skillgate', secret: 'skillgate-secret-0123', redirectUris: [`${publicUrl}/connect/callback`] },
    ],
    scopes: ['repo'],
  });
  upstream = await startHttpUpstream(['--require-audience', server.issuer]);
  const dir = mkdtempSync(join(tmpdir(), 'sg-connections-'));
  const config = {
    server: { public_url: publicUrl },
    auth: {
      tokens: [
        { name: 'alice', token_env: 'T_ALICE' },
        { name: 'bob', token_env: 'T_BOB' },
      ],
    },
    skills: { disclosure: 'eager', modern_disclosure: 'eager' },
    credentials: {
      store: 'file',
      file: join(dir, 'credentials.json'),
      keys: [{ id: 'k1', env: 'SG_KEY' }],
      providers: [
        {
          id: 'acme',
          oauth: {
            issuer: server.issuer,
            client_id_env: 'ACME_ID',
            client_secret_env: 'ACME_SECRET',
            scopes: ['repo'],
            resource: upstream.url,
          },
        },
        { id: 'apikey', secret: { label: 'API key' } },
      ],
    },
    upstreams: [
      { id: 'acme', url: upstream.url, auth: { provider: 'acme' } },
      { id: 'keyed', url: upstream.url, auth: { provider: 'apikey', header: 'X-API-Key' } },
    ],
  };
  env = {
    ...process.env,
    SKILLGATE_CONFIG: '',
    T_ALICE: ALICE,
    T_BOB: BOB,
    SG_KEY: randomBytes(32).toString('base64'),
    ACME_ID: 'skillgate',
    ACME_SECRET: 'skillgate-secret-0123',
  };
  configFile = join(dir, 'skillgate.json');
  writeFileSync(
    configFile,
    JSON.stringify({ ...config, skills: { ...config.skills, roots: [EXAMPLES_ROOT] } }),
  );
  gw = await startTestGateway(config, env, undefined, { port });

  // Alice connects both; Bob the API key only.
  const linkOf = async (token: string, tool: string): Promise<string> => {
    const c = await connectClient(gw.url, { token });
    const asked = await c.client.callTool({ name: tool, arguments: {} });
    await c.close();
    return String((asked.structuredContent as { url?: string } | undefined)?.url);
  };
  const done = [
    await new ConnectBrowser(gw.base).connectWithToken(
      await linkOf(ALICE, 'skill_acme_call_whoami'),
      ALICE,
      server,
      'alice-at-acme',
    ),
    await new ConnectBrowser(gw.base).connectSecretWithToken(
      await linkOf(ALICE, 'skill_keyed_call_whoami'),
      ALICE,
      API_KEY,
    ),
    await new ConnectBrowser(gw.base).connectSecretWithToken(
      await linkOf(BOB, 'skill_keyed_call_whoami'),
      BOB,
      API_KEY,
    ),
  ];
  for (const page of done)
    expect(page.status, page.text.replace(/<style>.*<\/style>/s, '').slice(0, 1500)).toBe(200);
});
afterAll(async () => {
  await gw?.close();
  await Promise.all([upstream?.stop(), server?.close()]);
});

const cli = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...cliArgs(), 'connections', '--config', configFile, ...args],
      { cwd: REPO_ROOT, env },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr }),
    );
  });

describe('skillgate connections', () => {
  it('lists every connection as JSON and as a table, never a value', async () => {
    const json = await cli('--json');
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(3);
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ principal: 'token:alice', provider: 'acme', state: 'connected' }),
        { principal: 'token:alice', provider: 'apikey', state: 'connected' },
        { principal: 'token:bob', provider: 'apikey', state: 'connected' },
      ]),
    );
    const acme = rows.find((r) => r.provider === 'acme');
    expect(Number.isNaN(Date.parse(String(acme?.expires_at)))).toBe(false);

    const mine = JSON.parse((await cli('--json', '--principal', 'bob')).stdout) as unknown[];
    expect(mine).toEqual([{ principal: 'token:bob', provider: 'apikey', state: 'connected' }]);

    const text = await cli();
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/^PRINCIPAL\s+PROVIDER\s+STATE\s+EXPIRES$/);
    expect(text.stdout).toMatch(/token:bob\s+apikey\s+connected\s+-/);
    for (const out of [json.stdout, text.stdout, text.stderr]) {
      expect(out).not.toContain(API_KEY);
      expect(out).not.toContain(ALICE);
    }
  });

  it('--revoke deletes a connection, revokes it at the provider, and the gateway asks to connect again', async () => {
    const revocations = server.revocations();
    const revoked = await cli('--revoke', 'acme', '--principal', 'alice', '--json');
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({
      principal: 'token:alice',
      provider: 'acme',
      removed: true,
      revoked: true,
    });
    expect(server.revocations()).toBeGreaterThan(revocations);
    const alice = await connectClient(gw.url, { token: ALICE });
    const asked = await alice.client.callTool({ name: 'skill_acme_call_whoami', arguments: {} });
    await alice.close();
    expect(asked.structuredContent).toMatchObject({ reason: 'CONNECT_REQUIRED', provider: 'acme' });

    const again = await cli('--revoke', 'acme', '--principal', 'alice');
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('token:alice has no acme connection');
    const usage = await cli('--revoke', 'acme');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--revoke PROVIDER needs --principal');
  });
});
