import { spawn } from 'node:child_process';
import {
  type HttpTestUpstream,
  isProcessAlive as isAlive,
  startHttpUpstream,
  TEST_UPSTREAM,
  waitFor,
} from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createUpstreamPool,
  type UpstreamDefinition,
  type UpstreamPool,
  type UpstreamPoolOptions,
} from '../src/index.js';

const pools: UpstreamPool[] = [];
const servers: HttpTestUpstream[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

const defaults = {
  skill: 'auto',
  tools: ['*'],
  timeoutSeconds: 10,
  maxConcurrent: 8,
  maxConcurrentPerPrincipal: 8,
  maxResultBytes: 65_536,
} as const;
const stdio = (extra: Partial<UpstreamDefinition> = {}, args: string[] = []): UpstreamDefinition => ({
  id: 'local',
  command: [process.execPath, TEST_UPSTREAM, ...args],
  ...defaults,
  ...extra,
});
const http = (url: string, extra: Partial<UpstreamDefinition> = {}): UpstreamDefinition => ({
  id: 'remote',
  url,
  ...defaults,
  ...extra,
});

interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

function poolOf(upstreams: UpstreamDefinition[], extra: Partial<UpstreamPoolOptions> = {}) {
  const lines: LogLine[] = [];
  const pool = createUpstreamPool({
    upstreams,
    cwd: process.cwd(),
    backoff: { initialMs: 50, maxMs: 400 },
    logger: {
      info: (fields, message) => lines.push({ level: 'info', message, fields }),
      warn: (fields, message) => lines.push({ level: 'warn', message, fields }),
    },
    ...extra,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...extra.env },
  });
  pools.push(pool);
  const state = (id: string) => pool.snapshots().find((s) => s.id === id);
  return { pool, lines, state };
}

const textOf = (result: Awaited<ReturnType<UpstreamPool['call']>>): string => {
  if (!result.ok) throw new Error(`${result.reason}: ${result.message}`);
  return (result.result.content[0] as { text: string }).text;
};

// What the test upstream was given, from the base64 copy it returns (the pool redacts configured secrets).
const decoded = (result: Awaited<ReturnType<UpstreamPool['call']>>): unknown => {
  if (!result.ok) throw new Error(`${result.reason}: ${result.message}`);
  const { encoded } = result.result.structuredContent as { encoded: string };
  return JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
};

describe('stdio upstreams', () => {
  it('lists every page of tools, narrowed by the tools globs, with instructions and server info', async () => {
    const { pool, state } = poolOf([
      stdio({ tools: ['echo', 'extra_*'] }, ['--page-size', '3', '--extra-tools', '20']),
    ]);
    await pool.start();
    const snapshot = state('local');
    expect(snapshot?.state).toBe('ready');
    expect(snapshot?.tools.map((t) => t.name)).toEqual([
      'echo',
      ...Array.from({ length: 20 }, (_, i) => `extra_${String(i).padStart(4, '0')}`),
    ]);
    expect(snapshot?.tools[0]).toMatchObject({
      title: 'Echo',
      description: 'Returns its text.',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', required: ['text'] },
    });
    expect(snapshot?.instructions).toContain('A test server for skillgate');
    expect(snapshot?.serverInfo).toEqual({ name: 'test-upstream', title: 'Test Upstream', version: '1.0.0' });
    // A tool outside the globs cannot be called either.
    expect(await pool.call('local', 'env', {})).toMatchObject({ ok: false, reason: 'UPSTREAM_ERROR' });
  });

  it('gives the server PATH, HOME, LANG and env_from only', async () => {
    const { pool } = poolOf([stdio({ envFrom: { API_KEY: 'FILES_API_KEY' } })], {
      env: { FILES_API_KEY: 'k-123', GATEWAY_SECRET: 'do-not-leak' },
    });
    await pool.start();
    const env = decoded(await pool.call('local', 'env', {})) as Record<string, string>;
    expect(env.API_KEY).toBe('k-123');
    expect(Object.keys(env).sort()).toEqual(['API_KEY', 'HOME', 'LANG', 'PATH']);
    expect(JSON.stringify(env)).not.toContain('do-not-leak');
  });

  it('is down with the reason when an env_from variable is unset, and others keep working', async () => {
    const { pool, state } = poolOf([stdio({ id: 'broken', envFrom: { KEY: 'MISSING_KEY' } }), stdio()]);
    await pool.start();
    expect(state('broken')).toMatchObject({
      state: 'down',
      lastError: expect.stringContaining('MISSING_KEY'),
    });
    expect(await pool.call('broken', 'echo', { text: 'x' })).toMatchObject({
      ok: false,
      reason: 'UPSTREAM_UNAVAILABLE',
    });
    expect(textOf(await pool.call('local', 'echo', { text: 'still here' }))).toBe('still here');
  });

  it('follows tools/list_changed: the new list, and one change notice', async () => {
    const { pool, state } = poolOf([stdio()]);
    await pool.start();
    const changes: string[] = [];
    pool.onChange((id) => changes.push(id));
    await pool.call('local', 'add_tool', { name: 'fresh' });
    await waitFor(() => state('local')?.tools.some((t) => t.name === 'fresh') === true, {
      what: 'the new tool',
    });
    expect(changes).toEqual(['local']);
    expect(textOf(await pool.call('local', 'fresh', { text: 'new' }))).toBe('new');
    await pool.call('local', 'remove_tool', { name: 'fresh' });
    await waitFor(() => state('local')?.tools.some((t) => t.name === 'fresh') === false, {
      what: 'removal',
      timeoutMs: 30_000,
    });
  });

  it('forwards progress', async () => {
    const { pool } = poolOf([stdio()]);
    await pool.start();
    const seen: unknown[] = [];
    const result = await pool.call('local', 'progress', { steps: 3 }, { onProgress: (p) => seen.push(p) });
    expect(textOf(result)).toBe('done 3');
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'step 1' },
      { progress: 2, total: 3, message: 'step 2' },
      { progress: 3, total: 3, message: 'step 3' },
    ]);
  });

  // Regression (typescript-sdk issue #2580): the v2 client dispatches a notification a microtask after it
  // reads it but settles the response at once, so steps read together with the result were lost.
  it.each(['stdio', 'modern', 'legacy'] as const)(
    'forwards every step written together with the result (%s)',
    async (kind) => {
      let definition = stdio();
      if (kind !== 'stdio') {
        const server = await startHttpUpstream(['--era', kind]);
        servers.push(server);
        definition = http(server.url);
      }
      const { pool } = poolOf([definition]);
      await pool.start();
      for (let round = 0; round < 5; round++) {
        const seen: unknown[] = [];
        const result = await pool.call(
          definition.id,
          'progress',
          { steps: 20, gap_ms: 0 },
          { onProgress: (p) => seen.push(p) },
        );
        expect(textOf(result)).toBe('done 20');
        expect(seen).toEqual(
          Array.from({ length: 20 }, (_, i) => ({ progress: i + 1, total: 20, message: `step ${i + 1}` })),
        );
      }
    },
  );

  it('answers failures: timeout, busy slots, oversize results, JSON-RPC errors; tool errors pass through', async () => {
    const { pool } = poolOf([stdio({ timeoutSeconds: 1, maxConcurrent: 1, maxResultBytes: 2048 })]);
    await pool.start();
    expect(await pool.call('local', 'sleep', { ms: 5000 })).toMatchObject({
      ok: false,
      reason: 'UPSTREAM_TIMEOUT',
    });
    const first = pool.call('local', 'sleep', { ms: 5000 });
    // The one slot is held until the first call times out, about when this one's own second is up too: it
    // may get the slot with a moment left, so it asks for longer than a moment (an echo could still make it).
    // Were its timeout counted from the slot rather than from its arrival, its 200 ms would fit: ok.
    expect(await pool.call('local', 'sleep', { ms: 200 })).toMatchObject({
      ok: false,
      reason: 'UPSTREAM_TIMEOUT',
    });
    await first;
    expect(await pool.call('local', 'big', { bytes: 4096 })).toMatchObject({
      ok: false,
      reason: 'RESULT_TOO_LARGE',
    });
    expect(textOf(await pool.call('local', 'big', { bytes: 100 }))).toHaveLength(100);
    expect(await pool.call('local', 'throw', { message: 'no such issue' })).toMatchObject({
      ok: false,
      reason: 'UPSTREAM_ERROR',
      message: expect.stringContaining('no such issue'),
    });
    expect(await pool.call('local', 'fail', { message: 'bad input' })).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'bad input' }], isError: true },
    });
  });

  it('cancels a call when the caller aborts', async () => {
    const { pool } = poolOf([stdio()]);
    await pool.start();
    const controller = new AbortController();
    const call = pool.call('local', 'sleep', { ms: 10_000 }, { signal: controller.signal });
    controller.abort();
    expect(await call).toMatchObject({
      ok: false,
      reason: 'UPSTREAM_ERROR',
      message: 'the call was cancelled',
    });
  });

  it('killed mid-call: the call gets UPSTREAM_UNAVAILABLE, the server is restarted with its tools', async () => {
    const { pool, state } = poolOf([stdio()]);
    await pool.start();
    const pid = Number(textOf(await pool.call('local', 'pid', {})));
    const call = pool.call('local', 'sleep', { ms: 10_000 });
    process.kill(pid, 'SIGKILL');
    expect(await call).toMatchObject({ ok: false, reason: 'UPSTREAM_UNAVAILABLE' });
    await waitFor(() => state('local')?.state === 'ready', { what: 'the restart', timeoutMs: 30_000 });
    const again = Number(textOf(await pool.call('local', 'pid', {})));
    expect(again).not.toBe(pid);
  });

  it('close stops the server and everything it started', async () => {
    const { pool } = poolOf([stdio()]);
    await pool.start();
    const pid = Number(textOf(await pool.call('local', 'pid', {})));
    const child = Number(textOf(await pool.call('local', 'spawn_child', {})));
    expect(isAlive(child)).toBe(true);
    await pool.close();
    await waitFor(() => !isAlive(pid) && !isAlive(child), {
      what: 'the server and its child to be gone',
      timeoutMs: 30_000,
    });
  });

  it('leaves no server running when its owner is SIGKILLed', async () => {
    const owner = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=@skillgate/source',
        new URL('./fixtures/poolOwner.ts', import.meta.url).pathname,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TEST_UPSTREAM } },
    );
    const pids = await new Promise<number[]>((resolve, reject) => {
      let out = '';
      owner.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /pids (\d+) (\d+)/.exec(out);
        if (match !== null) resolve([Number(match[1]), Number(match[2])]);
      });
      owner.once('exit', (code) => reject(new Error(`owner exited with ${code}`)));
    });
    expect(pids.every(isAlive)).toBe(true);
    owner.kill('SIGKILL');
    await waitFor(() => !pids.some(isAlive), {
      what: 'the server and its child to be gone',
      timeoutMs: 30_000,
    });
  });
});

describe('streamable HTTP upstreams', () => {
  it.each([
    ['modern', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ])('connects to a %s-era server (protocol %s) and follows its list changes', async (era, protocol) => {
    const server = await startHttpUpstream(['--era', era]);
    servers.push(server);
    const { pool, state, lines } = poolOf([http(server.url)]);
    await pool.start();
    expect(state('remote')?.state).toBe('ready');
    expect(lines.find((l) => l.message === 'upstream ready')?.fields.protocol).toBe(protocol);
    await pool.call('remote', 'add_tool', { name: 'later' });
    await waitFor(() => state('remote')?.tools.some((t) => t.name === 'later') === true, {
      what: 'list change',
    });
  });

  it('sends headers_from_env values whole, and nothing of its own caller', async () => {
    const server = await startHttpUpstream();
    servers.push(server);
    const { pool } = poolOf(
      [http(server.url, { headersFromEnv: { Authorization: 'UP_AUTH', 'X-Team': 'UP_TEAM' } })],
      {
        env: { UP_AUTH: 'Bearer upstream-secret', UP_TEAM: 'blue' },
      },
    );
    await pool.start();
    const result = await pool.call('remote', 'headers', {});
    if (!result.ok) throw new Error(result.message);
    const requests = decoded(result) as { headers: Record<string, string> }[];
    expect(requests.length).toBeGreaterThan(1);
    for (const request of requests) {
      expect(request.headers.authorization).toBe('Bearer upstream-secret');
      expect(request.headers['x-team']).toBe('blue');
    }
  });

  it('a server that is down at start stays listed, is retried with doubling backoff and comes back', async () => {
    const probe = await startHttpUpstream();
    const { port } = probe;
    await probe.stop();
    const { pool, state, lines } = poolOf([http(`http://127.0.0.1:${port}/mcp`), stdio()]);
    await pool.start();
    // Down, or already in its next (short, in tests) retry: never ready, and the reason is kept.
    expect(state('remote')).toMatchObject({
      state: expect.stringMatching(/^(down|connecting)$/),
      lastError: expect.stringContaining('connect failed'),
    });
    expect(state('local')?.state).toBe('ready');
    expect(await pool.call('remote', 'echo', { text: 'x' })).toMatchObject({
      reason: 'UPSTREAM_UNAVAILABLE',
    });
    await waitFor(() => lines.filter((l) => l.message === 'upstream down').length >= 5, {
      what: 'retries',
      timeoutMs: 30_000,
    });
    const delays = lines.filter((l) => l.message === 'upstream down').map((l) => l.fields.retryInMs);
    expect(delays.slice(0, 5)).toEqual([50, 100, 200, 400, 400]);
    servers.push(await startHttpUpstream(['--port', String(port)]));
    await waitFor(() => state('remote')?.state === 'ready', { what: 'reconnect', timeoutMs: 30_000 });
    expect(textOf(await pool.call('remote', 'echo', { text: 'back' }))).toBe('back');
  });

  it.each(['modern', 'legacy'])(
    'a %s server killed mid-call: UPSTREAM_UNAVAILABLE, down, then back',
    async (era) => {
      const server = await startHttpUpstream(['--era', era]);
      const { pool, state } = poolOf([http(server.url)]);
      await pool.start();
      const call = pool.call('remote', 'sleep', { ms: 10_000 });
      await server.stop();
      expect(await call).toMatchObject({ ok: false, reason: 'UPSTREAM_UNAVAILABLE' });
      await waitFor(() => state('remote')?.state !== 'ready', { what: 'down', timeoutMs: 30_000 });
      servers.push(await startHttpUpstream(['--era', era, '--port', String(server.port)]));
      await waitFor(() => state('remote')?.state === 'ready', { what: 'reconnect', timeoutMs: 30_000 });
      expect(textOf(await pool.call('remote', 'echo', { text: 'again' }))).toBe('again');
    },
  );
});
