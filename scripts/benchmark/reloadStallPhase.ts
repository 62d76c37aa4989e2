// A reload under load (docs/limits.md, "Reloads"): 1,000 skills moved at once into a watched root while three
// other clients keep asking — a 2025-era session's tools/list, a 2026-07-28 tools/list and skills/list. Each
// client's p99 while the new catalog is read and built, against its own idle p99 measured just before on the
// same gateway; target max(2x idle, 250 ms). Run both with the full list (the cap lifted) and with the default
// cap, where 1,001 skills switch the listing to search.

import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchContext } from './context.js';
import { generateSkills, percentile, startServer } from './support.js';
import { TARGETS } from './targets.js';

const exec = promisify(execFile);
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One client's figures: p99 idle and while the catalog is rebuilt, in ms. */
interface ProbeFigures {
  readonly idleP99: number;
  readonly reloadP99: number;
  readonly reloadMax: number;
  readonly reloadRequests: number;
}

/** One run's figures: per client, and how long the new catalog took to serve. */
interface ReloadRun {
  readonly probes: Readonly<Record<string, ProbeFigures>>;
  readonly servedAfterMs: number;
  /** The gateway's longest event-loop delay idle (with the same clients) and during the reload, in ms. */
  readonly idleDelayMs: number;
  readonly reloadDelayMs: number;
}

/** A client that keeps sending one request, recording when each was sent and how long it took. */
interface Probe {
  readonly name: string;
  readonly samples: Array<{ readonly at: number; readonly ms: number }>;
}

/** Posts one JSON-RPC message through `agent`; resolves with the answer's headers and JSON body. */
function post(
  agent: Agent,
  url: string,
  headers: Record<string, string>,
  body: object,
): Promise<{ headers: IncomingHttpHeaders; json: Record<string, unknown> | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}/mcp`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          // JSON, or an SSE stream whose last data line is the answer.
          const data = text.startsWith('{')
            ? text
            : text
                .split('\n')
                .filter((line) => line.startsWith('data: '))
                .at(-1)
                ?.slice(6);
          resolve({
            headers: response.headers,
            json:
              data === undefined || data === '' ? undefined : (JSON.parse(data) as Record<string, unknown>),
          });
        });
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** A request of one era that throws unless it has a result. */
type Send = () => Promise<void>;

function modernSend(agent: Agent, url: string, method: string): Send {
  return async () => {
    const { json } = await post(
      agent,
      url,
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method },
      { jsonrpc: '2.0', id: 1, method, params: { _meta: MODERN_META } },
    );
    if (json?.result === undefined) throw new Error(`2026 ${method}: no result`);
  };
}

/** Opens a 2025-era session (initialize + initialized); its tools/list as a Send. */
async function legacyToolsList(agent: Agent, url: string): Promise<Send> {
  const init = await post(
    agent,
    url,
    {},
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    },
  );
  const session = init.headers['mcp-session-id'];
  if (typeof session !== 'string') throw new Error('initialize: no session');
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await post(agent, url, headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 1;
  return async () => {
    const { json } = await post(agent, url, headers, { jsonrpc: '2.0', id: ++id, method: 'tools/list' });
    if (json?.result === undefined) throw new Error('2025 tools/list: no result');
  };
}

// How often each client sends its request, whether or not the previous one was answered: a stall delays every
// request sent during it, as it does for a person's agent (back to back, a client would send one). A client
// has at most CLIENT_SOCKETS connections, as a browser-like client would; a request waiting for one counts
// its wait.
const SEND_EVERY_MS = 20;
const CLIENT_SOCKETS = 4;
const AFTER_SWAP_MS = 1000;

/** Sends `send` every SEND_EVERY_MS until `stop()` says so, recording each latency; resolves when all answered. */
async function runProbe(probe: Probe, send: Send, stop: () => boolean): Promise<void> {
  const inFlight: Array<Promise<void>> = [];
  while (!stop()) {
    const at = performance.now();
    inFlight.push(send().then(() => void probe.samples.push({ at, ms: performance.now() - at })));
    await new Promise((resolve) => setTimeout(resolve, SEND_EVERY_MS));
  }
  await Promise.all(inFlight);
}

/**
 * The gateway's longest event-loop delay since the previous call, in ms: prom-client's
 * nodejs_eventloop_lag_max_seconds (monitorEventLoopDelay, reset at every scrape).
 */
async function eventLoopDelayMaxMs(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  if (value === undefined) throw new Error('no nodejs_eventloop_lag_max_seconds on /metrics');
  return Number(value) * 1000;
}

const skillsServed = async (url: string): Promise<number> =>
  ((await (await fetch(`${url}/__bench/catalog`)).json()) as { skills: number }).skills;

/** Polls until the gateway serves `count` skills; resolves with the time it first did. */
async function servedAt(url: string, count: number): Promise<number> {
  for (;;) {
    if ((await skillsServed(url)) >= count) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** One gateway: idle p99 of each client, then its p99 while the `staged` skills are moved in and built. */
async function measureReload(staged: string, maxListed: number, idleMs: number): Promise<ReloadRun> {
  const root = await mkdtemp(join(tmpdir(), 'skillgate-bench-reload-'));
  await mkdir(join(root, 'first'));
  await writeFile(
    join(root, 'first/SKILL.md'),
    '---\nname: first\ndescription: The first skill.\n---\nHi.\n',
  );
  const gateway = await startServer('gateway', root, 'namespaced', 'off', {
    BENCH_WATCH: '1',
    BENCH_MAX_LISTED: String(maxListed),
  });
  try {
    const agents = Array.from(
      { length: 3 },
      () => new Agent({ keepAlive: true, maxSockets: CLIENT_SOCKETS }),
    );
    const [legacyAgent, toolsAgent, skillsAgent] = agents as [Agent, Agent, Agent];
    const clients: Array<[Probe, Send]> = [
      [{ name: '2025 tools/list', samples: [] }, await legacyToolsList(legacyAgent, gateway.url)],
      [{ name: '2026 tools/list', samples: [] }, modernSend(toolsAgent, gateway.url, 'tools/list')],
      [{ name: '2026 skills/list', samples: [] }, modernSend(skillsAgent, gateway.url, 'skills/list')],
    ];
    let stopped = false;
    await eventLoopDelayMaxMs(gateway.url);
    const running = clients.map(([probe, send]) => runProbe(probe, send, () => stopped));
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const names = await readdir(staged);
    const idleDelayMs = await eventLoopDelayMaxMs(gateway.url);
    const movedAt = performance.now();
    // By another process, at once, as `mv` or a checkout does it: the watcher gets the events in a burst.
    await exec('sh', ['-c', 'mv "$0"/* "$1"/', staged, root]);
    const servedAtMs = await servedAt(gateway.url, names.length + 1);
    // And a second more: the swap's own work (notifying sessions, the first lists of the new catalog) counts too.
    await new Promise((resolve) => setTimeout(resolve, AFTER_SWAP_MS));
    const reloadDelayMs = await eventLoopDelayMaxMs(gateway.url);
    stopped = true;
    await Promise.all(running);
    for (const agent of agents) agent.destroy();
    const probes: Record<string, ProbeFigures> = {};
    for (const [{ name, samples }] of clients) {
      const idle = samples.filter((s) => s.at < movedAt).map((s) => s.ms);
      // Every request that was waiting at some point of the reload, the one that was in flight at the move too.
      const during = samples
        .filter((s) => s.at + s.ms >= movedAt && s.at <= servedAtMs + AFTER_SWAP_MS)
        .map((s) => s.ms);
      probes[name] = {
        idleP99: percentile(idle, 99),
        reloadP99: percentile(during, 99),
        reloadMax: Math.max(...during),
        reloadRequests: during.length,
      };
    }
    return { probes, servedAfterMs: servedAtMs - movedAt, idleDelayMs, reloadDelayMs };
  } finally {
    await gateway.stop();
    // Back to the staging folder for the next run (generated skills are gen-NNNNN).
    await exec('sh', ['-c', 'mv "$0"/gen-* "$1"/ 2>/dev/null || true', root, staged]);
    await rm(root, { recursive: true, force: true });
  }
}

/** Runs the phase; returns its figures for bench-results. */
export async function reloadStallBench(options: BenchContext): Promise<Record<string, ReloadRun>> {
  const { row, fmt, note } = options;
  const count = 1000;
  // The skills to move in: generated once, moved into each gateway's root and back.
  const staged = await generateSkills(count, 2);
  try {
    const runs: Record<string, ReloadRun> = {};
    for (const [label, maxListed] of [
      ['full list', 100_000],
      ['search (default cap)', 100],
    ] as const) {
      const run = await measureReload(staged, maxListed, options.quick ? 1500 : 3000);
      runs[label] = run;
      for (const [client, figures] of Object.entries(run.probes)) {
        row(
          'reload',
          `${client} p99 while ${fmt(count)} skills arrive (${label})`,
          `${fmt(figures.reloadP99, 1)} ms`,
          `idle ${fmt(figures.idleP99, 1)} ms`,
          `${fmt(figures.reloadP99 / figures.idleP99, 1)}x`,
          TARGETS.reloadStall,
          [figures.reloadP99, figures.idleP99],
        );
      }
      row(
        'reload',
        `longest event-loop delay while ${fmt(count)} skills arrive (${label})`,
        `${fmt(run.reloadDelayMs)} ms`,
        `idle ${fmt(run.idleDelayMs)} ms`,
        `${fmt(run.reloadDelayMs / run.idleDelayMs, 1)}x`,
        '',
      );
      row(
        'reload',
        `new catalog served after the move (${label})`,
        `${fmt(run.servedAfterMs)} ms`,
        '',
        '',
        '',
      );
    }
    note(
      `reload: ${fmt(count)} skills (8 files each) moved into a watched root at once by mv; each client sends its request every ${SEND_EVERY_MS} ms (answered or not), its p99 taken over the requests in flight from the move until ${fmt(AFTER_SWAP_MS)} ms after the new catalog serves; target max(2x idle p99, 250 ms) (docs/limits.md, "Reloads").`,
    );
    return runs;
  } finally {
    await rm(staged, { recursive: true, force: true });
  }
}
