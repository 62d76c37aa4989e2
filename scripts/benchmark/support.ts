import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** Whether benchmark servers run the sources (`pnpm bench --source`) rather than the built packages. */
let fromSources = false;

/** Set once by index.ts from its command line. */
export function configureServers(options: { readonly source: boolean }): void {
  fromSources = options.source;
}
const ACCEPT = 'application/json, text/event-stream';

/** A benchmark server running in its own process (the load generator must not share its event loop). */
export interface BenchServer {
  readonly url: string;
  readonly pid: number;
  readonly startupMs: number;
  stop(): Promise<void>;
}

/** Starts servers.ts in a child process and resolves once it listens. */
export async function startServer(
  kind: string,
  root: string,
  disclosure = 'namespaced',
  sandbox = 'auto',
  env: Readonly<Record<string, string>> = {},
  /** Another checkout's benchmark servers (a build of older code, measured beside this one). */
  repo = join(here, '../..'),
): Promise<BenchServer> {
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--max-old-space-size=8192',
      // The servers run the built packages (`pnpm bench` builds first): what is measured is what ships, not
      // tsx's on-the-fly transform of the sources. `pnpm bench --source` measures the sources instead.
      ...(fromSources ? ['--conditions=@skillgate/source'] : []),
      '--import',
      'tsx',
      join(repo, 'scripts/benchmark/servers.ts'),
      kind,
      root,
      disclosure,
      sandbox,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], cwd: repo, env: { ...process.env, ...env } },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"port"'));
      if (line !== undefined) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.on('exit', (code) => reject(new Error(`${kind} exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? 0,
    startupMs: performance.now() - started,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** Opens an MCP session over raw HTTP (initialize + initialized) and returns its id. */
async function openSession(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: ACCEPT };
  const init = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });
  const id = init.headers.get('mcp-session-id');
  await init.text();
  if (id === null) throw new Error(`initialize answered ${init.status}`);
  const done = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': id },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.text();
  return id;
}

/** Sends one JSON-RPC request on a session and returns the parsed result message. */
export async function rpc(url: string, session: string, body: object): Promise<Record<string, unknown>> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': session,
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const json = text.startsWith('{')
    ? text
    : (text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .at(-1)
        ?.slice(6) ?? '{}');
  return JSON.parse(json) as Record<string, unknown>;
}

/** Opens n sessions, `parallel` at a time; returns the ids and the rate in sessions per second. */
export async function openSessions(
  url: string,
  n: number,
  parallel = 20,
): Promise<{ ids: string[]; perSecond: number }> {
  const ids: string[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i += parallel) {
    ids.push(
      ...(await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, () => openSession(url)))),
    );
  }
  return { ids, perSecond: n / ((performance.now() - started) / 1000) };
}

/** heapUsed + external after a forced GC in the server process. */
export async function serverMemory(url: string): Promise<number> {
  const m = (await (await fetch(`${url}/__bench/mem`)).json()) as { heapUsed: number; external: number };
  return m.heapUsed + m.external;
}

/** Peak resident set size of a process (VmHWM), in bytes. */
export async function peakRss(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

const WORDS =
  'parse validate convert summarize extract render audit index compress encrypt schedule translate'.split(
    ' ',
  );
const THINGS =
  'invoices logs spreadsheets contracts images tickets metrics commits emails datasets manifests'.split(' ');

/**
 * Writes `count` skills with 5 files each (2 scripts, 2 references, 1 asset), plus `extraReferences` text
 * files of 1-8 KiB each, into a new temp root.
 */
export async function generateSkills(count: number, extraReferences = 0): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), `skillgate-bench-${count}-`));
  for (let i = 0; i < count; i++) {
    const name = `gen-${String(i).padStart(5, '0')}`;
    const dir = join(root, name);
    await mkdir(join(dir, 'scripts'), { recursive: true });
    await mkdir(join(dir, 'references'));
    await mkdir(join(dir, 'assets'));
    const verb = WORDS[i % WORDS.length];
    const thing = THINGS[(i * 7) % THINGS.length];
    const extra = i % 3 === 0 ? ' Use it when a user asks to clean up or check them before sharing.' : '';
    const description = `Helps ${verb} ${thing} in bulk and reports what changed.${extra}`;
    await writeFile(
      join(dir, 'SKILL.md'),
      `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nRun scripts/check.sh first, then scripts/run.py.\n`,
    );
    await writeFile(join(dir, 'scripts', 'run.py'), 'print("ok")\n');
    await writeFile(join(dir, 'scripts', 'check.sh'), 'echo ok\n');
    await writeFile(join(dir, 'references', 'guide.md'), `# Guide for ${name}\n`);
    await writeFile(join(dir, 'references', 'api.md'), `# API of ${name}\n`);
    await writeFile(join(dir, 'assets', 'data.json'), '{"rows": []}\n');
    // Reference-sized files (1-8 KiB of text), so that hashing has real bytes to read.
    for (let r = 0; r < extraReferences; r++) {
      const line = `${name} reference ${r}: ${verb} ${thing} step by step, then check the result.\n`;
      await writeFile(join(dir, 'references', `topic-${r}.md`), line.repeat(16 * (1 + ((i + r) % 8))));
    }
  }
  return root;
}

/** The p-th percentile (0–100) of a list of numbers. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
