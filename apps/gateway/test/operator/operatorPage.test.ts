import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  type HttpTestUpstream,
  type RedisServer,
  startHttpUpstream,
  startRedisServer,
  TEST_UPSTREAM,
  waitFor,
} from '@skillgate/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import {
  connectClient,
  EXAMPLES_ROOT,
  REPO_ROOT,
  startTestGateway,
  type TestGateway,
} from '../helpers/testGateway.js';

const run = promisify(execFile);

// Every value the page must never show, each unique enough to be found anywhere in the DOM.
const ADMIN_TOKEN = 'admin-token-9f3b1c7e5d';
const AGENT_TOKEN = 'agent-token-4a8e2f6b0c';
const HASHED_TOKEN = 'hashed-token-77c1d2e3f4';
const UPSTREAM_KEY = 'upstream-key-0d9c8b7a6f';
const CHILD_SECRET = 'child-secret-5e4d3c2b1a';
const SECRETS = [ADMIN_TOKEN, AGENT_TOKEN, HASHED_TOKEN, UPSTREAM_KEY, CHILD_SECRET];
const ENV = {
  ...process.env,
  OP_ADMIN: ADMIN_TOKEN,
  OP_AGENT: AGENT_TOKEN,
  OP_UPSTREAM_KEY: UPSTREAM_KEY,
  OP_CHILD_SECRET: CHILD_SECRET,
};
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const TOKENS = [
  { name: 'ops', token_env: 'OP_ADMIN', admin: true },
  { name: 'agent', token_env: 'OP_AGENT', skills: ['csv-*', 'text-*', 'hostile', 'sleeper'] },
  { name: 'hashed', token_sha256: sha256(HASHED_TOKEN), skills: ['brand-*'] },
];

// The real browser the page is for: Debian's chromium, headless.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let browser: Browser;
let work: string;
let extraRoot: string;
const gateways: TestGateway[] = [];
const upstreams: HttpTestUpstream[] = [];

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  work = await mkdtemp(join(tmpdir(), 'skillgate-operator-'));
  extraRoot = join(work, 'extra');
  // A skill whose text tries to inject markup: the page must show it as text.
  await mkdir(join(extraRoot, 'hostile'), { recursive: true });
  await writeFile(
    join(extraRoot, 'hostile', 'SKILL.md'),
    '---\nname: hostile\ndescription: "<img src=x onerror=alert(1)><script>alert(2)</script> & friends"\n---\nBody.\n',
  );
  // A skill whose script runs until cancelled: a job the page lists as running.
  await mkdir(join(extraRoot, 'sleeper', 'scripts'), { recursive: true });
  await writeFile(
    join(extraRoot, 'sleeper', 'SKILL.md'),
    '---\nname: sleeper\ndescription: Sleeps.\n---\nRun wait.sh.\n',
  );
  await writeFile(join(extraRoot, 'sleeper', 'scripts', 'wait.sh'), 'sleep 60\n');
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await rm(work, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all(upstreams.splice(0).map((u) => u.stop()));
});

async function gateway(input: Record<string, unknown>): Promise<TestGateway> {
  const gw = await startTestGateway(input, ENV);
  gateways.push(gw);
  return gw;
}

/** A fresh page, optionally sending a bearer token with every request, at the given viewport. */
async function open(
  url: string,
  options: { token?: string; width?: number; height?: number } = {},
): Promise<{ page: Page; status: number; headers: Record<string, string> }> {
  const page = await browser.newPage({
    viewport: { width: options.width ?? 1280, height: options.height ?? 900 },
  });
  if (options.token !== undefined)
    await page.setExtraHTTPHeaders({ Authorization: `Bearer ${options.token}` });
  const response = await page.goto(url);
  if (response === null) throw new Error(`no response for ${url}`);
  return { page, status: response.status(), headers: response.headers() };
}

const texts = (page: Page, selector: string): Promise<string[]> =>
  page.locator(selector).evaluateAll((nodes) => nodes.map((n) => n.textContent ?? ''));

/** Opens every collapsed part, so nothing hides from a check of the DOM or the layout. */
const openEveryPart = (page: Page): Promise<unknown> =>
  page.evaluate("for (const d of document.querySelectorAll('details')) d.open = true");

/** The names of a list the page writes as one line of space-separated names. */
const namesIn = async (page: Page, selector: string): Promise<string[]> =>
  ((await page.locator(selector).textContent()) ?? '').split(' ').filter((n) => n !== '');

/** Runs the real CLI from source, as `pnpm skillgate` does. */
async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [...cliArgs(), ...args], {
    cwd: REPO_ROOT,
    env: { ...ENV, SKILLGATE_CONFIG: '' },
  });
  return stdout;
}

const tokensConfig = () => ({
  skills: { roots: [extraRoot, EXAMPLES_ROOT], async_enabled: true },
  auth: { tokens: TOKENS },
});

describe('the operator page at GET /', () => {
  it('opens for an admin token with every section; a non-admin token gets 403, no or a wrong token 401', async () => {
    const gw = await gateway(tokensConfig());
    const admin = await open(`${gw.base}/`, { token: ADMIN_TOKEN });
    expect(admin.status).toBe(200);
    expect(admin.headers['content-type']).toContain('text/html');
    for (const id of ['overview', 'skills', 'upstreams', 'principal', 'sessions', 'calls', 'config']) {
      expect(await admin.page.locator(`section#${id}`).count(), id).toBe(1);
    }
    expect(await admin.page.locator('details[data-skill="csv-tools"]').count()).toBe(1);
    // The skill's exact tools on each surface.
    const surface = (s: string) =>
      namesIn(admin.page, `details[data-skill="csv-tools"] [data-surface="${s}"]`);
    expect(await surface('namespaced')).toEqual(['skill_csv-tools_get_info']);
    expect(await surface('unlocked')).toContain('skill_csv-tools_get_info');
    expect((await surface('unlocked')).length).toBeGreaterThan(1);
    expect(await surface('catalog')).toEqual(['skill_csv-tools_get_info']);
    // Markup in a description is text, never markup, and the page runs no script at all.
    expect(await admin.page.locator('script, img').count()).toBe(0);
    expect(await texts(admin.page, 'details[data-skill="hostile"] .desc')).toEqual([
      '<img src=x onerror=alert(1)><script>alert(2)</script> & friends',
    ]);

    const agent = await open(`${gw.base}/`, { token: AGENT_TOKEN });
    expect(agent.status).toBe(403);
    expect(await agent.page.content()).toContain('NOT_ADMIN');
    expect(await agent.page.locator('section#skills').count()).toBe(0);

    const nobody = await open(`${gw.base}/`);
    expect(nobody.status).toBe(401);
    expect(nobody.headers['www-authenticate']).toMatch(/^Bearer/);
    const wrong = await open(`${gw.base}/`, { token: 'not-a-token-at-all' });
    expect(wrong.status).toBe(401);
    expect(await wrong.page.locator('section#skills').count()).toBe(0);
  });

  it('asks for a token even when auth.allow_anonymous lets requests without one use /mcp', async () => {
    const gw = await gateway({ ...tokensConfig(), auth: { tokens: TOKENS, allow_anonymous: true } });
    const nobody = await open(`${gw.base}/`);
    expect(nobody.status).toBe(401);
    expect((await open(`${gw.base}/`, { token: ADMIN_TOKEN })).status).toBe(200);
  });

  it('is open without tokens (anonymous mode, loopback) as the MCP endpoint is', async () => {
    const gw = await gateway({ skills: { roots: [EXAMPLES_ROOT] } });
    const page = await open(`${gw.base}/`);
    expect(page.status).toBe(200);
    expect(await page.page.locator('header').textContent()).toContain('anonymous');
  });

  it('"what does token X see" lists exactly what `skillgate tools --token X` prints', async () => {
    const config = tokensConfig();
    // JSON is YAML: the CLI reads the very object the gateway got.
    const file = join(work, 'principal.yaml');
    await writeFile(file, JSON.stringify(config));
    const gw = await gateway(config);
    // Each CLI run starts tsx (seconds on a busy machine): a token by env, one by hash, and anonymous, each
    // once, on the session surface for two of them and the 2026-07-28 surface for the third.
    const cases = [
      ['agent', 'session', []],
      ['hashed', 'session', []],
      ['anonymous', 'modern', ['--disclosure', 'catalog']],
    ] as const;
    for (const [name, surface, extra] of cases) {
      const { page, status } = await open(`${gw.base}/?as=${name}`, { token: ADMIN_TOKEN });
      expect(status).toBe(200);
      const shown = await namesIn(page, `[data-tools="${surface}"]`);
      expect(shown.length, name).toBeGreaterThan(0);
      expect(shown).toEqual(
        (await cli('tools', '--config', file, '--token', name, ...extra)).trim().split('\n'),
      );
    }
    // The agent's globs narrow it to its own skills.
    const { page } = await open(`${gw.base}/?as=agent`, { token: ADMIN_TOKEN });
    expect((await namesIn(page, '[data-tools="session"]')).sort()).toEqual([
      'skill_csv-tools_get_info',
      'skill_hostile_get_info',
      'skill_sleeper_get_info',
      'skill_text-stats_get_info',
    ]);
  }, 120_000);

  it('never shows a configured secret: tokens, token hashes, upstream headers and env values', async () => {
    const http = await startHttpUpstream();
    upstreams.push(http);
    const gw = await gateway({
      ...tokensConfig(),
      upstreams: [
        { id: 'remote', url: http.url, headers_from_env: { 'X-Api-Key': 'OP_UPSTREAM_KEY' } },
        {
          id: 'local',
          command: [process.execPath, TEST_UPSTREAM],
          env_from: { CHILD_SECRET: 'OP_CHILD_SECRET' },
        },
      ],
    });
    for (const as of ['ops', 'agent', 'hashed', 'anonymous']) {
      const { page, status } = await open(`${gw.base}/?as=${as}`, { token: ADMIN_TOKEN });
      expect(status).toBe(200);
      // Every section open, so nothing hides in a collapsed part of the DOM either.
      await openEveryPart(page);
      const dom = await page.content();
      for (const secret of [...SECRETS, sha256(HASHED_TOKEN)]) expect(dom).not.toContain(secret);
      // The config is there, redacted, with the keys an operator looks for.
      expect(await page.locator('#config pre').textContent()).toContain('"upstreams"');
    }
  });

  it('renders 1,000 skills, and caps a larger catalog with an "N more" line that a filter narrows', async () => {
    const root = join(work, 'many');
    const skill = async (name: string) => {
      await mkdir(join(root, name, 'scripts'), { recursive: true });
      await writeFile(
        join(root, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Skill ${name} for the page.\n---\nBody.\n`,
      );
      await writeFile(join(root, name, 'scripts', 'run.sh'), 'echo hi\n');
    };
    const bulk = Array.from({ length: 1000 }, (_, i) => `bulk-${String(i).padStart(4, '0')}`);
    const extra = Array.from({ length: 150 }, (_, i) => `extra-${String(i).padStart(3, '0')}`);
    for (const name of [...bulk, ...extra]) await skill(name);
    const gw = await gateway({ skills: { roots: [root] } });

    const all = await open(`${gw.base}/`);
    expect(all.status).toBe(200);
    expect(await all.page.locator('details[data-skill]').count()).toBe(1000);
    expect(await all.page.locator('#skills-more').textContent()).toContain('150 more skills');

    const thousand = await open(`${gw.base}/?q=bulk`);
    expect(await texts(thousand.page, 'details[data-skill] summary b')).toEqual(bulk);
    expect(await thousand.page.locator('#skills-more').count()).toBe(0);
  }, 120_000);

  it('shows an upstream up with its tools, then down with its last error', async () => {
    const http = await startHttpUpstream();
    upstreams.push(http);
    const gw = await gateway({
      skills: { roots: [EXAMPLES_ROOT] },
      upstreams: [{ id: 'remote', url: http.url }],
    });
    const state = async () => {
      const { page } = await open(`${gw.base}/`);
      const row = page.locator('tr[data-upstream="remote"]');
      const result = {
        state: await row.locator('[data-state]').getAttribute('data-state'),
        tools: Number(await row.locator('td[data-label="tools"]').textContent()),
        error: (await row.locator('td[data-label="last error"]').textContent()) ?? '',
      };
      await page.close();
      return result;
    };
    const up = await state();
    expect(up.state).toBe('ready');
    expect(up.tools).toBeGreaterThan(0);
    expect(up.error).toBe('—');

    await http.stop();
    await waitFor(async () => (await state()).state === 'down', {
      what: 'the page showing remote down',
      timeoutMs: 30_000,
    });
    expect((await state()).error).not.toBe('—');
  }, 60_000);

  it('lists a tool call made with a real MCP client among the recent calls, without its arguments', async () => {
    const gw = await gateway(tokensConfig());
    const client = await connectClient(gw.url, { token: AGENT_TOKEN });
    await client.client.callTool({
      name: 'skill_csv-tools_get_info',
      arguments: { note: 'argument-marker-31337' },
    });
    await client.close();
    const { page } = await open(`${gw.base}/`, { token: ADMIN_TOKEN });
    const row = page.locator('tr[data-call="skill_csv-tools_get_info"]');
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('agent');
    expect(await page.content()).not.toContain('argument-marker-31337');
  });

  it('shows the open sessions and the running jobs with their counts, ids cut short', async () => {
    const gw = await gateway(tokensConfig());
    const client = await connectClient(gw.url, { token: AGENT_TOKEN, name: 'page-watcher' });
    await client.client.callTool({ name: 'skill_sleeper_get_info', arguments: {} });
    const started = await client.client.callTool({ name: 'skill_sleeper_run_async_wait_sh', arguments: {} });
    const jobId = (started.structuredContent as { job_id: string }).job_id;
    const sessionId = client.transport.sessionId ?? '';
    expect(sessionId.length).toBeGreaterThan(8);

    const { page } = await open(`${gw.base}/`, { token: ADMIN_TOKEN });
    const section = (await page.locator('section#sessions').textContent()) ?? '';
    expect(section).toContain('1 session open, 1 job running');
    const session = page.locator(`tr[data-session="${sessionId.slice(0, 8)}"]`);
    expect(await session.textContent()).toMatch(/agent.*page-watcher/);
    const job = page.locator(`tr[data-job="${jobId.slice(0, 8)}"]`);
    expect(await job.textContent()).toContain('scripts/wait.sh');
    // A session id (with its token) resumes the session, a job id reads its output: neither is on the page whole.
    const dom = await page.content();
    expect(dom).not.toContain(sessionId);
    expect(dom).not.toContain(jobId);
    await client.client.callTool({ name: 'skill_cancel_async', arguments: { job_id: jobId } });
    await client.close();
  });

  it('with Redis, shows the sessions and jobs of every replica, and the recent calls of its own', async () => {
    const redis: RedisServer = await startRedisServer();
    try {
      const shared = {
        ...tokensConfig(),
        state: { backend: 'redis', key_prefix: `op-${Date.now()}:` },
      };
      const redisEnv = { ...ENV, SKILLGATE_REDIS_URL: redis.url };
      const a = await startTestGateway(shared, redisEnv);
      gateways.push(a);
      const b = await startTestGateway(shared, redisEnv);
      gateways.push(b);
      const client = await connectClient(a.url, { token: AGENT_TOKEN, name: 'on-replica-a' });
      await client.client.callTool({ name: 'skill_sleeper_get_info', arguments: {} });
      const started = await client.client.callTool({
        name: 'skill_sleeper_run_async_wait_sh',
        arguments: {},
      });
      const jobId = (started.structuredContent as { job_id: string }).job_id;
      const sessionId = client.transport.sessionId ?? '';

      const onB = (await open(`${b.base}/`, { token: ADMIN_TOKEN })).page;
      expect(await onB.locator('section#sessions').textContent()).toContain(
        '1 session open, 1 job running (all replicas)',
      );
      expect(await onB.locator(`tr[data-session="${sessionId.slice(0, 8)}"]`).count()).toBe(1);
      expect(await onB.locator(`tr[data-job="${jobId.slice(0, 8)}"]`).count()).toBe(1);
      // The calls were answered by A: B's ring has none of them.
      expect(await onB.locator('tr[data-call]').count()).toBe(0);
      const onA = (await open(`${a.base}/`, { token: ADMIN_TOKEN })).page;
      expect(await onA.locator('tr[data-call="skill_sleeper_get_info"]').count()).toBe(1);

      await client.client.callTool({ name: 'skill_cancel_async', arguments: { job_id: jobId } });
      await client.close();
    } finally {
      await Promise.all(gateways.splice(0).map((g) => g.close()));
      await redis.close();
    }
  }, 60_000);

  it('fits a phone: no horizontal overflow at 390x844, every part open', async () => {
    const http = await startHttpUpstream();
    upstreams.push(http);
    const gw = await gateway({ ...tokensConfig(), upstreams: [{ id: 'remote', url: http.url }] });
    const client = await connectClient(gw.url, { token: AGENT_TOKEN });
    await client.client.callTool({ name: 'skill_csv-tools_get_info', arguments: {} });
    const { page } = await open(`${gw.base}/?as=agent`, { token: ADMIN_TOKEN, width: 390, height: 844 });
    await openEveryPart(page);
    // Evaluated in the page (as text: the test's own compiler has no DOM types).
    const [scrollWidth, innerWidth] = (await page.evaluate(
      '[document.documentElement.scrollWidth, window.innerWidth]',
    )) as [number, number];
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    await client.close();
  });
});
