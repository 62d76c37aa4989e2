import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@skillgate/config';
import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PrivateCgroups, privateCgroups } from '../helpers/privateCgroups.js';
import { serveProcess } from '../helpers/serveProcess.js';
import {
  connectClient,
  REPO_ROOT,
  startTestGateway,
  type TestClient,
  type TestGateway,
} from '../helpers/testGateway.js';

// Hostile scripts (apps/gateway/test/fixtures/hostile-skills) run through real gateways, each attempt once
// in the sandbox, where it must fail, and once with `sandbox: off`, where it must succeed: the off run proves
// the attempt is real, so a sandboxed failure cannot be an accident of the test.

const FIXTURES = join(REPO_ROOT, 'apps/gateway/test/fixtures/hostile-skills');
const SKILL = 'hostile-probe';
const TIGHT = { processes: 16, memory_mb: 64, file_bytes: 1_048_576, cpu_seconds: 1 };
const NONE = { processes: 0, memory_mb: 0, file_bytes: 0, cpu_seconds: 0 };

interface Result {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  stdout: string;
  stderr: string;
  limit_exceeded?: string;
  /** The first line of the text content: what the model reads about how the run ended. */
  status: string;
}

interface Running {
  readonly gw: TestGateway;
  readonly client: TestClient;
  run(script: string, ...args: string[]): Promise<Result>;
}

let work: string;
let roots: string;
let secret: string;
const open: Running[] = [];
// Every `skillgate serve` started, killed at the end even if a test failed before it could.
const processes: ChildProcess[] = [];

/** A gateway serving a private copy of the hostile skills, with the given `scripts` section. */
async function gateway(scripts: Record<string, unknown>, async = false): Promise<Running> {
  const gw = await startTestGateway({
    skills: { roots: [roots], async_enabled: async },
    scripts: { default_timeout_seconds: 10, kill_grace_ms: 200, ...scripts },
  });
  const client = await connectClient(gw.url);
  await client.client.callTool({ name: `skill_${SKILL}_get_info`, arguments: {} });
  const running: Running = {
    gw,
    client,
    async run(script, ...args) {
      const name = `skill_${SKILL}_run_${script.replace('.', '_')}`;
      const result = await client.client.callTool({ name, arguments: { args } });
      const text = (result.content as { type: string; text?: string }[])[0]?.text ?? '';
      return { ...(result.structuredContent as object), status: text.split('\n')[0] ?? '' } as Result;
    },
  };
  open.push(running);
  return running;
}

/** Pids of processes whose name (argv[0]) starts with `marker`. */
function withMarker(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith(marker)) found.push(Number(entry));
    } catch {
      // Exited while scanning.
    }
  }
  return found;
}

function killAll(marker: string): void {
  for (const pid of withMarker(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

const uniqueMarker = (label: string): string => `skillgate-${label}-${randomBytes(6).toString('hex')}`;

let sandboxed: Running;
let bare: Running;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'skillgate-sandbox-test-'));
  roots = join(work, 'skills');
  await cp(FIXTURES, roots, { recursive: true });
  secret = join(work, 'secret.txt');
  await writeFile(secret, 'TOP-SECRET-91c2\n');
  [sandboxed, bare] = await Promise.all([
    gateway({ sandbox: 'bwrap' }),
    gateway({ sandbox: 'off', limits: NONE }),
  ]);
});
afterAll(async () => {
  for (const proc of processes.splice(0)) proc.kill('SIGKILL');
  for (const g of open.splice(0)) {
    await g.client.close();
    await g.gw.close();
  }
  await rm(work, { recursive: true, force: true });
});

describe('what a sandboxed script can reach', () => {
  it.each([
    ["the gateway's config file", () => join(REPO_ROOT, 'configs/skillgate.yaml'), 'server:'],
    ['a secret file outside the skills', () => secret, 'TOP-SECRET-91c2'],
    [
      "another skill's file",
      () => join(roots, 'hostile-neighbour/references/private.md'),
      'NEIGHBOUR-PRIVATE',
    ],
  ])('cannot read %s', async (_what, target, content) => {
    const inside = await sandboxed.run('read.py', target());
    expect(inside).toMatchObject({ exit_code: 1, stdout: 'DENIED ENOENT\n' });
    const outside = await bare.run('read.py', target());
    expect(outside.exit_code).toBe(0);
    expect(outside.stdout).toContain(content);
  });

  it("cannot list the gateway user's home directory", async () => {
    expect((await sandboxed.run('list.py', homedir())).stdout).toBe('DENIED ENOENT\n');
    expect((await bare.run('list.py', homedir())).stdout).toMatch(/^LISTED \d+/);
  });

  it('cannot write into its own skill folder', async () => {
    const target = join(roots, SKILL, `pwned-${randomBytes(4).toString('hex')}.txt`);
    expect((await sandboxed.run('write.py', target, 'x')).stdout).toBe('DENIED EROFS\n');
    expect((await bare.run('write.py', target, 'x')).stdout).toBe('WROTE\n');
    await rm(target);
  });

  it('writes to a private /tmp that the next run does not see', async () => {
    const handoff = `/tmp/skillgate-handoff-${randomBytes(4).toString('hex')}`;
    try {
      expect((await sandboxed.run('write.py', handoff, 'left behind')).stdout).toBe('WROTE\n');
      expect((await sandboxed.run('read.py', handoff)).stdout).toBe('DENIED ENOENT\n');
      expect((await bare.run('write.py', handoff, 'left behind')).stdout).toBe('WROTE\n');
      expect((await bare.run('read.py', handoff)).stdout).toBe('READ left behind\n');
    } finally {
      await rm(handoff, { force: true });
    }
  });

  it("sees only its own processes, not the gateway's", async () => {
    const inside = JSON.parse((await sandboxed.run('procs.py', String(process.pid))).stdout);
    expect(inside.sees).toBe(false);
    expect(inside.count).toBeLessThan(10);
    const outside = JSON.parse((await bare.run('procs.py', String(process.pid))).stdout);
    expect(outside.sees).toBe(true);
  });

  it("cannot connect to the gateway's own port unless scripts.network is true", async () => {
    const port = new URL(sandboxed.gw.base).port;
    expect((await sandboxed.run('connect.py', '127.0.0.1', port)).stdout).toMatch(/^DENIED E/);
    expect((await bare.run('connect.py', '127.0.0.1', port)).stdout).toBe('CONNECTED\n');
    const networked = await gateway({ sandbox: 'bwrap', network: true });
    expect((await networked.run('connect.py', '127.0.0.1', port)).stdout).toBe('CONNECTED\n');
  });
});

describe('limits (scripts.limits)', () => {
  let limited: Running;
  let limitedOff: Running;
  beforeAll(async () => {
    [limited, limitedOff] = await Promise.all([
      gateway({ sandbox: 'bwrap', limits: TIGHT }),
      gateway({ sandbox: 'off', limits: TIGHT }),
    ]);
  });

  it('stops a fork bomb at the process limit, in the sandbox and without it', async () => {
    const inside = await limited.run('forks.py', '64');
    expect(inside).toMatchObject({ exit_code: 1, limit_exceeded: 'processes' });
    expect(Number(/FAILED AFTER (\d+)/.exec(inside.stdout)?.[1])).toBeLessThan(16);
    // Outside the sandbox the cgroup holds it (this machine runs the tests as root, where RLIMIT_NPROC does not).
    if (limitedOff.gw.gateway.runner.isolation?.cgroup) {
      expect(await limitedOff.run('forks.py', '64')).toMatchObject({
        exit_code: 1,
        limit_exceeded: 'processes',
      });
    }
    expect(await bare.run('forks.py', '64')).toMatchObject({ exit_code: 0, stdout: 'FORKED 64\n' });
  });

  it('ends an allocation past memory_mb with MemoryError, reported as the memory limit', async () => {
    const inside = await limited.run('alloc.py', '256');
    expect(inside).toMatchObject({ exit_code: 1, limit_exceeded: 'memory' });
    expect(inside.status).toMatch(/^exit code 1 in \d+ ms; stopped by the scripts\.limits\.memory_mb limit$/);
    expect(inside.stderr).toContain('MemoryError');
    expect(await bare.run('alloc.py', '256')).toMatchObject({ exit_code: 0, stdout: 'ALLOCATED\n' });
  });

  it('refuses a file past file_bytes', async () => {
    const inside = await limited.run('bigfile.py', String(4 * 1_048_576));
    expect(inside).toMatchObject({ exit_code: 1, limit_exceeded: 'file_bytes' });
    expect(await limitedOff.run('bigfile.py', String(4 * 1_048_576))).toMatchObject({
      exit_code: 1,
      limit_exceeded: 'file_bytes',
    });
    expect(await bare.run('bigfile.py', String(4 * 1_048_576))).toMatchObject({
      exit_code: 0,
      stdout: 'WROTE\n',
    });
  });

  it('ends a run past cpu_seconds with SIGXCPU', async () => {
    const inside = await limited.run('spin.py', '3');
    expect(inside).toMatchObject({ exit_code: null, signal: 'SIGXCPU', limit_exceeded: 'cpu_seconds' });
    expect(inside.status).toContain('killed by SIGXCPU');
    expect(inside.status).toContain('scripts.limits.cpu_seconds limit');
    expect(await bare.run('spin.py', '1.5')).toMatchObject({ exit_code: 0, stdout: 'SPUN\n' });
  });
});

describe('no script outlives its run', () => {
  it('kills a setsid grandchild when the run ends, with the sandbox and without it', async () => {
    for (const g of [sandboxed, bare]) {
      const marker = uniqueMarker('setsid');
      try {
        expect((await g.run('escape.sh', marker)).exit_code).toBe(0);
        await waitFor(() => withMarker(marker).length === 0, { timeoutMs: 3000 });
      } finally {
        killAll(marker);
      }
    }
    // The same script spawned as a plain process group does escape a group kill: the attempt is real.
    const marker = uniqueMarker('setsid-control');
    try {
      const child = spawn('bash', [join(roots, SKILL, 'scripts/escape.sh'), marker], {
        detached: true,
        stdio: 'ignore',
      });
      await new Promise((resolve) => child.once('exit', resolve));
      // The group is gone already (the script exited); only the grandchild in its own session is left.
      expect(() => process.kill(-(child.pid ?? 0), 'SIGKILL')).toThrow();
      await waitFor(() => withMarker(marker).length === 1, { timeoutMs: 3000 });
    } finally {
      killAll(marker);
    }
  });
});

interface Served {
  readonly proc: ChildProcess;
  readonly url: URL;
  /** Pids of this gateway's watchdog. */
  watchdog(): string[];
}

/** `skillgate serve` as a real process, in the given cgroups if any; resolves once it listens. */
async function serve(scripts: string, cgroups: readonly string[] = []): Promise<Served> {
  const config = join(work, `serve-${randomBytes(4).toString('hex')}.yaml`);
  await writeFile(
    config,
    `server: { host: 127.0.0.1, port: 0 }\nskills: { roots: [${roots}], async_enabled: true }\nscripts: ${scripts}\nlogging: { level: info }\n`,
  );
  const { proc, url } = await serveProcess(config, { cgroups, spawned: (p) => processes.push(p) });
  // The watchdog is the gateway's child in its own session, named in its argv.
  const watchdog = () =>
    readdirSync('/proc').filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return (
          parent === proc.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('skillgate-watchdog')
        );
      } catch {
        return false;
      }
    });
  return { proc, url, watchdog };
}

/** Starts a sync and an async run of linger.sh under `marker` and waits until all four processes run. */
async function lingerUnder(url: URL, marker: string): Promise<TestClient> {
  const c = await connectClient(url);
  await c.client.callTool({ name: `skill_${SKILL}_get_info`, arguments: {} });
  c.client
    .callTool({ name: `skill_${SKILL}_run_linger_sh`, arguments: { args: [`${marker}-sync`] } })
    .catch(() => {});
  await c.client.callTool({
    name: `skill_${SKILL}_run_async_linger_sh`,
    arguments: { args: [`${marker}-async`] },
  });
  // The run's own process and its child, for each run (their argv[0] is the marker).
  await waitFor(() => withMarker(marker).length === 4, { timeoutMs: 10_000 });
  // Still connected: closing the session would cancel its runs before the gateway is killed.
  return c;
}

describe('no script outlives the gateway', () => {
  // Three real `skillgate serve` processes, started together: tsx start-up dominates this file's run time.
  let withSandbox: Served;
  let withoutSandbox: Served;
  let withoutWatchdog: Served;
  // The gateway without a watchdog runs in cgroups of its own: any gateway another test file starts meanwhile
  // would rightly sweep the dead gateway's runs, which is what this test must see the *next* start do.
  let ownCgroups: PrivateCgroups | undefined;
  beforeAll(async () => {
    ownCgroups = await privateCgroups('nowatchdog');
    [withSandbox, withoutSandbox, withoutWatchdog] = await Promise.all([
      serve('{ sandbox: bwrap, kill_grace_ms: 200 }'),
      serve('{ sandbox: off, kill_grace_ms: 200 }'),
      serve('{ sandbox: off, kill_grace_ms: 200 }', ownCgroups?.dirs),
    ]);
  }, 60_000);
  afterAll(async () => {
    await ownCgroups?.remove();
  });

  it.each([
    ['bwrap', () => withSandbox],
    ['off', () => withoutSandbox],
  ])('kills sync and async runs when the gateway is SIGKILLed (sandbox %s)', async (_mode, served) => {
    const { proc, url } = served();
    const marker = uniqueMarker('sigkill');
    const c = await lingerUnder(url, marker);
    try {
      proc.kill('SIGKILL');
      await waitFor(() => withMarker(marker).length === 0, { timeoutMs: 5000 });
    } finally {
      killAll(marker);
      await c.close().catch(() => {});
    }
  });

  it('without the watchdog, runs outlive a SIGKILLed gateway until the next start sweeps them', async () => {
    expect(ownCgroups, 'writable v1 pids cgroups').toBeDefined();
    const { proc, url, watchdog } = withoutWatchdog;
    const marker = uniqueMarker('sigkill-nowatchdog');
    const c = await lingerUnder(url, marker);
    try {
      const [watcher] = watchdog();
      expect(watcher).toBeDefined();
      process.kill(Number(watcher), 'SIGKILL');
      proc.kill('SIGKILL');
      await waitFor(() => proc.exitCode !== null || proc.signalCode !== null, { timeoutMs: 5000 });
      // The attempt is real: nothing but the watchdog would have killed them.
      expect(withMarker(marker)).toHaveLength(4);
      // The next start in the same cgroups sweeps them.
      const next = await serve('{ sandbox: off }', ownCgroups?.dirs);
      await waitFor(() => withMarker(marker).length === 0, { timeoutMs: 3000 });
      const ready = (await (await fetch(new URL('/readyz', next.url))).json()) as {
        sandbox: { sweptProcesses: number };
      };
      expect(ready.sandbox.sweptProcesses).toBeGreaterThanOrEqual(4);
    } finally {
      killAll(marker);
      await c.close().catch(() => {});
    }
  });
});

describe('start-up', () => {
  it('reports the sandbox in /readyz', async () => {
    const ready = (await (await fetch(`${sandboxed.gw.base}/readyz`)).json()) as { sandbox: unknown };
    expect(ready.sandbox).toMatchObject({
      sandbox: 'bwrap',
      requested: 'bwrap',
      network: false,
      watchdog: true,
    });
  });

  it('auto without a working bubblewrap runs scripts unsandboxed, with one loud warning and /readyz saying why', async () => {
    const lines: string[] = [];
    const gw = await startTestGateway(
      { skills: { roots: [roots] }, scripts: { sandbox: 'auto' } },
      { ...process.env, PATH: join(work, 'no-bwrap-here') },
      lines,
    );
    try {
      const ready = (await (await fetch(`${gw.base}/readyz`)).json()) as { sandbox: unknown };
      expect(ready.sandbox).toMatchObject({
        sandbox: 'off',
        requested: 'auto',
        reason: expect.stringContaining('bwrap'),
      });
      const warnings = lines.filter((line) => line.includes('WITHOUT A SANDBOX'));
      expect(warnings).toHaveLength(1);
    } finally {
      await gw.close();
    }
  });

  it('auto without a working bubblewrap refuses to start on a bind beyond loopback, naming scripts.sandbox', async () => {
    const token = 'a-token-long-enough-for-a-public-bind';
    const config = {
      server: { host: '0.0.0.0' },
      auth: { tokens: [{ name: 'ops', token_env: 'SANDBOX_TEST_TOKEN' }] },
      skills: { roots: [roots] },
    };
    const env = { ...process.env, PATH: join(work, 'no-bwrap-here'), SANDBOX_TEST_TOKEN: token };
    const error = await startTestGateway({ ...config, scripts: { sandbox: 'auto' } }, env).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['scripts.sandbox']);
    // Said explicitly, it starts (with the loud warning).
    const gw = await startTestGateway({ ...config, scripts: { sandbox: 'off' } }, env);
    await gw.close();
  });

  it('bwrap without a working bubblewrap refuses to start, naming scripts.sandbox', async () => {
    const error = await startTestGateway(
      { skills: { roots: [roots] }, scripts: { sandbox: 'bwrap' } },
      { ...process.env, PATH: join(work, 'no-bwrap-here') },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['scripts.sandbox']);
  });
});
