import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import {
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  Client as V2Client,
} from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { parseConfig } from '@skillgate/config';
import { waitFor } from '@skillgate/testkit';
import { base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import {
  makeKey,
  type ProviderClient,
  startTestProvider,
  type TestProvider,
} from '../helpers/oidcProvider.js';
import { initializeBody, post } from '../helpers/rawHttp.js';
import {
  connectClient,
  EXAMPLES_ROOT,
  PROBE_ROOT,
  REPO_ROOT,
  textOf,
  toolNames,
} from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

const SECRET = 'oauth-e2e-client-secret-0123456789';
const STATIC_TOKEN = 'static-token-for-ops-0123456789';
// Scopes: mcp (required), skills:text and skills:probe (grants); ops-bot gets everything through a claim.
const TEXT: ProviderClient = { id: 'text-agent', secret: SECRET, scopes: ['mcp', 'skills:text'] };
const PROBE: ProviderClient = {
  id: 'probe-agent',
  secret: SECRET,
  scopes: ['mcp', 'skills:text', 'skills:probe'],
};
const OPS: ProviderClient = { id: 'ops-bot', secret: SECRET, scopes: ['mcp'], claims: { groups: ['ops'] } };

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernList = (token: string, url: URL) =>
  post(
    url,
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
    { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', authorization: `Bearer ${token}` },
  );

const freePort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

let idp: TestProvider;
let gateway: Gateway;
let url: URL;
let origin: string;
const lines: string[] = [];

beforeAll(async () => {
  idp = await startTestProvider([TEXT, PROBE, OPS]);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const config = parseConfig(
    {
      server: { port, public_url: origin },
      skills: { roots: [EXAMPLES_ROOT, PROBE_ROOT], async_enabled: true },
      auth: {
        tokens: [{ name: 'static-ops', token_env: 'STATIC_OPS_TOKEN', skills: ['*'], admin: true }],
        oauth: {
          issuer: idp.issuer,
          required_scopes: ['mcp'],
          grants: [
            { scope: 'skills:text', skills: ['text-stats'] },
            { scope: 'skills:probe', skills: ['gateway-probe'] },
            { claim: { name: 'groups', value: 'ops' }, skills: ['*'] },
          ],
        },
      },
      rate_limit: { requests_per_second: 0 },
      logging: { level: 'debug' },
    },
    { baseDir: REPO_ROOT },
  );
  gateway = await createGateway(config, {
    env: { ...process.env, STATIC_OPS_TOKEN: STATIC_TOKEN },
    logDestination: { write: (line: string) => lines.push(line) },
    // Rotation is tested without waiting 30 s; the interval itself is tested in auth/oauthVerifier.test.ts.
    oauthKeyRefetchIntervalMs: 200,
  });
  await gateway.app.listen({ host: '127.0.0.1', port });
  url = new URL('/mcp', origin);
});
afterAll(async () => {
  await gateway?.close();
  await idp?.close();
});

const tokenFor = (client: ProviderClient, scope: string, resource = url.href) =>
  idp.token(client, { resource, scope });
const now = () => Math.floor(Date.now() / 1000);

describe('the operator page (GET /)', () => {
  it('never opens for an OAuth access token, even one granted every skill; a static admin token opens it', async () => {
    const ops = await tokenFor(OPS, 'mcp');
    // The OAuth token is good for /mcp...
    expect((await modernList(ops, url)).status).toBe(200);
    // ...but not for the page.
    const refused = await fetch(`${origin}/`, { headers: { authorization: `Bearer ${ops}` } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('NOT_ADMIN');
    const nobody = await fetch(`${origin}/`);
    expect(nobody.status).toBe(401);
    expect(nobody.headers.get('www-authenticate')).toContain('resource_metadata');
    const admin = await fetch(`${origin}/`, { headers: { authorization: `Bearer ${STATIC_TOKEN}` } });
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('id="principal"');
  });
});

describe('Protected Resource Metadata (RFC 9728)', () => {
  it('is served at the path-aware well-known URL and at the root', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: `${origin}/mcp`,
        authorization_servers: [idp.issuer],
        scopes_supported: ['mcp', 'skills:text', 'skills:probe'],
        bearer_methods_supported: ['header'],
        resource_name: 'skillgate',
      });
    }
  });
});

describe('401 and 403 challenges', () => {
  const metadata = () => `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;

  it('answers a request without a token 401 naming the metadata and the required scopes', async () => {
    const response = await post(url, initializeBody());
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer ${metadata()}, scope="mcp"`);
  });

  it('answers every rejected token 401 invalid_token, never 400 or 5xx', async () => {
    const encode = (value: object) => base64url.encode(JSON.stringify(value));
    const claims = { iss: idp.issuer, aud: url.href, sub: 'x', scope: 'mcp skills:text', exp: now() + 300 };
    const key = idp.keys[0];
    if (key === undefined) throw new Error('no key');
    const { createHmac } = await import('node:crypto');
    const hsInput = `${encode({ alg: 'HS256', kid: key.kid })}.${encode(claims)}`;
    const cases: Record<string, string> = {
      garbage: 'Bearer not-a-token',
      'wrong audience': `Bearer ${await tokenFor(TEXT, 'mcp', 'https://other.example.test/mcp')}`,
      'wrong issuer': `Bearer ${await idp.sign({ ...claims, iss: 'https://evil.example.test' })}`,
      expired: `Bearer ${await idp.sign({ ...claims, exp: now() - 120 })}`,
      'alg none': `Bearer ${encode({ alg: 'none' })}.${encode(claims)}.`,
      'HS256 with the public key': `Bearer ${hsInput}.${createHmac('sha256', JSON.stringify(key.publicJwk)).update(hsInput).digest('base64url')}`,
      'unknown key': `Bearer ${await idp.sign(claims, { key: await makeKey('stranger') })}`,
      'no scheme': 'Bearer',
      'another scheme': `Basic ${Buffer.from('a:b').toString('base64')}`,
    };
    for (const [name, authorization] of Object.entries(cases)) {
      const response = await post(url, initializeBody(), { authorization });
      expect(response.status, name).toBe(401);
      const challenge = response.headers.get('www-authenticate') ?? '';
      expect(challenge, name).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", /);
      expect(challenge, name).toContain(metadata());
      expect(challenge, name).toContain('scope="mcp"');
    }
  });

  it('answers a valid token without a required scope 403 insufficient_scope naming all of them', async () => {
    const response = await post(url, initializeBody(), {
      authorization: `Bearer ${await tokenFor(TEXT, 'skills:text')}`,
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(
      /^Bearer error="insufficient_scope", error_description="[^"]+", scope="mcp", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });
});

describe('valid tokens in both eras', () => {
  it('a v1 client (2025 era) lists only granted skills and runs one', async () => {
    const token = await tokenFor(TEXT, 'mcp skills:text');
    const c = await connectClient(url, { token });
    try {
      expect(await toolNames(c.client)).toEqual(['skill_text-stats_get_info']);
      await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
      const run = await c.client.callTool({
        name: 'skill_text-stats_run_stats_py',
        arguments: { stdin: 'a b c\n' },
      });
      expect(run.isError).toBeFalsy();
      expect((run.structuredContent as { exit_code: number }).exit_code).toBe(0);
    } finally {
      await c.close();
    }
  });

  it('a v2 client pinned to 2026-07-28 lists granted skills (cacheScope private) and runs one', async () => {
    const token = await tokenFor(TEXT, 'mcp skills:text');
    const c = await connectV2(url, { era: 'modern', token });
    try {
      const names = (await c.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('skill_text-stats_get_info');
      expect(names.filter((n) => /^skill_(?!text-stats_)[a-z-]+_get_info$/.test(n))).toEqual([]);
      const run = await c.client.callTool({
        name: 'run_skill_script',
        arguments: { skill: 'text-stats', path: 'scripts/stats.py', stdin: 'one two\n' },
      });
      expect((run.structuredContent as { exit_code: number }).exit_code).toBe(0);
      const hidden = await c.client.callTool({
        name: 'run_skill_script',
        arguments: { skill: 'log-triage', path: 'scripts/triage.sh' },
      });
      expect(hidden.isError).toBe(true);
      const raw = await modernList(token, url);
      expect(((await raw.json()) as { result: { cacheScope: string } }).result.cacheScope).toBe('private');
    } finally {
      await c.close();
    }
  });

  it('a v2 client in the legacy era and in auto mode works with the same token', async () => {
    const token = await tokenFor(OPS, 'mcp');
    for (const era of ['legacy', 'auto'] as const) {
      const c = await connectV2(url, { era, token });
      try {
        expect((await c.client.listTools()).tools.map((t) => t.name)).toContain('skill_log-triage_get_info');
        expect(c.statuses.filter((s) => s >= 400)).toEqual([]);
      } finally {
        await c.close();
      }
    }
  });

  it("the v2 client's own OAuth (client credentials) finds the metadata and fetches a token itself", async () => {
    const client = new V2Client(
      { name: 'oauth-m2m', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    const transport = new StreamableHTTPClientTransport(url, {
      authProvider: new ClientCredentialsProvider({
        clientId: OPS.id,
        clientSecret: SECRET,
        scope: 'mcp',
        expectedIssuer: idp.issuer,
      }),
    });
    await client.connect(transport);
    try {
      // ops-bot's token carries groups: [ops], which grants every skill.
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain('skill_gateway-probe_get_info');
      expect(names).toContain('skill_text-stats_get_info');
    } finally {
      await client.close();
    }
  });
});

describe('grants filter everything a principal reaches', () => {
  it('the Skills extension lists only granted skills', async () => {
    const c = await connectV2(url, { era: 'modern', token: await tokenFor(TEXT, 'mcp skills:text') });
    try {
      const listing = await new SkillsClient(c.client).list();
      expect(listing.skills.map((s) => s.uri)).toEqual(['skill://text-stats/SKILL.md']);
      expect(listing.cacheScope).toBe('private');
    } finally {
      await c.close();
    }
  });

  it('a principal without any matching grant sees no skill', async () => {
    const c = await connectClient(url, { token: await tokenFor(TEXT, 'mcp') });
    try {
      expect(await toolNames(c.client)).toEqual([]);
    } finally {
      await c.close();
    }
  });

  it('jobs belong to the OAuth principal that started them; scripts never see its token', async () => {
    const probeToken = await tokenFor(PROBE, 'mcp skills:probe');
    const probe = await connectClient(url, { token: probeToken });
    const ops = await connectClient(url, { token: await tokenFor(OPS, 'mcp') });
    try {
      await probe.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      const started = await probe.client.callTool({
        name: 'skill_gateway-probe_run_async_slow_py',
        arguments: { args: ['--seconds', '0.2'] },
      });
      const jobId = (started.structuredContent as { job_id: string }).job_id;
      await ops.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      const foreign = await ops.client.callTool({
        name: 'skill_get_async_status',
        arguments: { job_id: jobId },
      });
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).toMatch(/no job/i);
      const own = await probe.client.callTool({
        name: 'skill_get_async_status',
        arguments: { job_id: jobId },
      });
      expect(own.isError).toBeFalsy();
      const env = await probe.client.callTool({ name: 'skill_gateway-probe_run_env_py', arguments: {} });
      const stdout = (env.structuredContent as { stdout: string }).stdout;
      expect(stdout).toContain('PATH');
      expect(stdout).not.toContain(probeToken);
      expect(stdout).not.toContain(probeToken.split('.')[1]);
    } finally {
      await probe.close();
      await ops.close();
    }
  });
});

describe('tokens only from the Authorization header', () => {
  it('refuses a token in the query string, even beside a valid header, and logs neither', async () => {
    const token = await tokenFor(OPS, 'mcp');
    const withQuery = new URL(`${url.href}?access_token=${token}`);
    const refused = await post(withQuery, initializeBody(), { authorization: `Bearer ${token}` });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_request"');
    const c = await connectClient(url, { token });
    await c.client.listTools();
    await c.close();
    const all = lines.join('\n');
    expect(all).toContain('"principal":"ops-bot"');
    expect(all).not.toContain(token);
    expect(all).not.toContain(token.split('.')[2]);
  });
});

describe('static tokens beside OAuth', () => {
  it('a configured static token still works, as its own principal', async () => {
    const c = await connectClient(url, { token: STATIC_TOKEN });
    try {
      expect(await toolNames(c.client)).toContain('skill_log-triage_get_info');
    } finally {
      await c.close();
    }
  });
});

describe('hostile headers', () => {
  it('answers 10 KB non-Bearer Authorization headers 401 while others are served', async () => {
    const big = `Basic ${'A'.repeat(10 * 1024)}`;
    const token = await tokenFor(OPS, 'mcp');
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0
          ? modernList(token, url).then((r) => r.status)
          : post(url, initializeBody(), { authorization: big }).then((r) => r.status),
      ),
    );
    expect(results.filter((_, i) => i % 3 === 0).every((s) => s === 200)).toBe(true);
    expect(results.filter((_, i) => i % 3 !== 0).every((s) => s === 401)).toBe(true);
  });
});

describe('keys change at the provider', () => {
  it('accepts tokens signed by a rotated key without a restart, and cached keys while the JWKS is down', async () => {
    const before = await tokenFor(TEXT, 'mcp skills:text');
    expect((await modernList(before, url)).status).toBe(200);
    const next = await idp.rotate();
    const after = await tokenFor(TEXT, 'mcp skills:text');
    // The first request may come within the refetch interval of the last fetch: it is retried until fetched.
    await waitFor(async () => (await modernList(after, url)).status === 200, { timeoutMs: 10_000 });
    await idp.stop();
    try {
      // Tokens the gateway never saw, signed by keys it holds: accepted with the provider down.
      const claims = { iss: idp.issuer, aud: url.href, scope: 'mcp', exp: now() + 300 };
      expect((await modernList(await idp.sign({ ...claims, sub: 'n1' }, { key: next }), url)).status).toBe(
        200,
      );
      // An unknown key while the provider is down: 401, not 5xx.
      const stranger = await idp.sign({ ...claims, sub: 'n2' }, { key: await makeKey('down') });
      expect((await modernList(stranger, url)).status).toBe(401);
    } finally {
      await idp.start();
    }
  });
});
