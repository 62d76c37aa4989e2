import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type HttpTestUpstream,
  isProcessAlive as isAlive,
  startHttpUpstream,
  TEST_UPSTREAM,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliArgs } from '../helpers/cliCommand.js';
import { serveProcess } from '../helpers/serveProcess.js';
import { REPO_ROOT, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-upstreams-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});
const gateways: TestGateway[] = [];
const servers: HttpTestUpstream[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const readPids = async (file: string): Promise<number[]> => {
  await waitFor(async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').length > 2, {
    what: `pids in ${file}`,
    timeoutMs: 30_000,
  });
  return (await readFile(file, 'utf8')).trim().split('\n').map(Number);
};

interface Readiness {
  status: string;
  upstreams: { id: string; state: string; tools: number; last_error: string | null }[];
}

describe('upstreams in the gateway', () => {
  it('/readyz lists every upstream and stays 200 while one is down; metrics show which are up', async () => {
    const http = await startHttpUpstream();
    servers.push(http);
    const lines: string[] = [];
    const gw = await startTestGateway(
      {
        upstreams: [
          { id: 'remote', url: http.url },
          { id: 'local', command: [process.execPath, TEST_UPSTREAM], tools: ['echo', 'sleep'] },
          { id: 'dead', url: 'http://127.0.0.1:9/mcp' },
        ],
      },
      process.env,
      lines,
    );
    gateways.push(gw);
    const ready = async (): Promise<{ status: number; body: Readiness }> => {
      const response = await fetch(`${gw.base}/readyz`);
      return { status: response.status, body: (await response.json()) as Readiness };
    };
    const first = await ready();
    expect(first.status).toBe(200);
    expect(first.body.upstreams).toEqual([
      { id: 'remote', state: 'ready', tools: 13, last_error: null },
      { id: 'local', state: 'ready', tools: 2, last_error: null },
      { id: 'dead', state: 'down', tools: 0, last_error: expect.stringContaining('connect failed') },
    ]);
    const metrics = await (await fetch(`${gw.base}/metrics`)).text();
    expect(metrics).toContain('skillgate_upstream_up{upstream="remote"} 1');
    expect(metrics).toContain('skillgate_upstream_up{upstream="local"} 1');
    expect(metrics).toContain('skillgate_upstream_up{upstream="dead"} 0');
    // A stdio server's stderr reaches the gateway log, prefixed with its id.
    expect(lines.some((line) => line.includes('[local] test upstream test-upstream started (stdio)'))).toBe(
      true,
    );

    await http.stop();
    await waitFor(async () => (await ready()).body.upstreams[0]?.state !== 'ready', {
      what: 'remote down',
      timeoutMs: 30_000,
    });
    expect((await ready()).status).toBe(200);
    servers.push(await startHttpUpstream(['--port', String(http.port)]));
    await waitFor(async () => (await ready()).body.upstreams[0]?.state === 'ready', {
      what: 'remote back',
      timeoutMs: 30_000,
    });
  });

  it("rebuilds the catalog when an upstream's tools change", async () => {
    const gw = await startTestGateway({
      upstreams: [{ id: 'local', command: [process.execPath, TEST_UPSTREAM] }],
    });
    gateways.push(gw);
    const reloads = async (): Promise<number> => {
      const text = await (await fetch(`${gw.base}/metrics`)).text();
      return Number(/skillgate_catalog_reloads_total\{outcome="ok"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await reloads();
    await gw.gateway.upstreams.call('local', 'add_tool', { name: 'fresh' });
    await waitFor(async () => (await reloads()) > before, { what: 'a catalog rebuild', timeoutMs: 30_000 });
    expect(gw.gateway.upstreams.snapshots()[0]?.tools.some((t) => t.name === 'fresh')).toBe(true);
  });

  it('stops every stdio upstream on shutdown', async () => {
    const pidFile = join(work, 'shutdown.pids');
    const gw = await startTestGateway({
      // Unsandboxed, so the server can write its host pids to the file (upstreams/sandbox.test.ts covers
      // the sandboxed ones).
      scripts: { sandbox: 'off' },
      upstreams: [
        { id: 'local', command: [process.execPath, TEST_UPSTREAM, '--pid-file', pidFile, '--spawn-child'] },
      ],
    });
    const pids = await readPids(pidFile);
    expect(pids.every(isAlive)).toBe(true);
    await gw.close();
    await waitFor(() => !pids.some(isAlive), { what: 'upstream processes gone', timeoutMs: 30_000 });
  });

  it('leaves no stdio upstream running when the gateway is SIGKILLed', async () => {
    const pidFile = join(work, 'sigkill.pids');
    const config = join(work, 'sigkill.yaml');
    await writeFile(
      config,
      JSON.stringify({
        server: { port: 0 },
        skills: { roots: [join(REPO_ROOT, 'examples/skills')] },
        scripts: { sandbox: 'off' },
        upstreams: [
          { id: 'local', command: [process.execPath, TEST_UPSTREAM, '--pid-file', pidFile, '--spawn-child'] },
        ],
      }),
    );
    const { proc } = await serveProcess(config);
    const pids = await readPids(pidFile);
    expect(pids.every(isAlive)).toBe(true);
    proc.kill('SIGKILL');
    await waitFor(() => !pids.some(isAlive), { what: 'upstream processes gone', timeoutMs: 30_000 });
  });
});

describe('skillgate upstreams', () => {
  it('prints state and tools of each upstream and exits 1 when one is down', async () => {
    const config = join(work, 'cli.yaml');
    await writeFile(
      config,
      JSON.stringify({
        upstreams: [
          { id: 'local', command: [process.execPath, TEST_UPSTREAM], tools: ['echo', 'sleep'] },
          { id: 'dead', url: 'http://127.0.0.1:9/mcp' },
        ],
      }),
    );
    const cli = spawn(process.execPath, [...cliArgs(), 'upstreams', '--config', config], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    cli.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => cli.once('exit', resolve));
    expect(code).toBe(1);
    expect(out).toContain(
      'local: ready — test-upstream 1.0.0 (2 tools, skill: auto)\n  echo  Returns its text.\n  sleep  Waits ms milliseconds.\n',
    );
    expect(out).toMatch(/dead: down \(0 tools, skill: auto\)\n {2}error: connect failed: .+\n$/);
  });
});
