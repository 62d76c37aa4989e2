// Attack traffic for attacks.ts, run in a child process so that it never shares an event loop with the
// healthy client being measured. Usage (forked by attacks.ts):
// attackers.ts <slowloris|batch|wideJson|listen|reload|slotMonopoly|listChurn|hostileAnswers> <options JSON>
// Sends {ready: true} once the attack runs, then {stats} when it receives "stop", and exits.
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Options of the slow-connection attack. */
export interface SlowlorisOptions {
  readonly host: string;
  readonly port: number;
  /** Local addresses the sockets come from (127.0.0.x: each plays a different client host). */
  readonly addresses: readonly string[];
  readonly socketsPerAddress: number;
  /** One header byte per socket this often: enough to reset any inactivity timer. */
  readonly byteEveryMs: number;
  /** Wait after a socket is closed before opening its replacement, as slowloris tools do. */
  readonly reconnectAfterMs: number;
}

/** Options of the batch attack. */
export interface BatchOptions {
  readonly url: string;
  readonly token: string;
  readonly workers: number;
  /** Elements of each big batch. */
  readonly elements: number;
  /** The read tool each element calls (a ~300 KB reference). */
  readonly readTool: string;
  /** The get_info tool that unlocks readTool. */
  readonly unlockTool: string;
  /**
   * mixed: every batch shape the issue reproduced, as fast as answers come, ignoring 429s. allowance: only
   * the largest batch a 2025-03-26 session may send, waiting out each Retry-After: a principal that uses
   * its whole rate limit on the heaviest requests it is allowed.
   */
  readonly mode: 'mixed' | 'allowance';
}

/** Options of the wide-JSON attack: tools/list with a huge `_meta`, in both eras, as fast as answered. */
export interface WideJsonOptions {
  readonly url: string;
  readonly token: string;
  /** Connections posting at once (the three). */
  readonly workers: number;
  /** Keys in each `_meta`. */
  readonly keys: number;
}

/** Options of the listen flood: subscriptions/listen streams opened and held as fast as answered. */
export interface ListenOptions {
  readonly url: string;
  readonly token: string;
  /** Streams tried at once; each that opens is held until the end, each refused is retried. */
  readonly workers: number;
}

/** Options of the reload attack: skills added under `watch` and removed again, over and over. */
export interface ReloadOptions {
  /** A watched skill root. */
  readonly root: string;
  /** Where skills are written before they are moved into the root in one burst. */
  readonly staging: string;
  readonly skills: number;
}

/** Options of the slot monopoly: one principal holds long calls to an upstream, more than its slots. */
export interface SlotMonopolyOptions {
  readonly url: string;
  readonly token: string;
  /** The get_info tool that unlocks callTool. */
  readonly unlockTool: string;
  /** An upstream tool that sleeps `ms`. */
  readonly callTool: string;
  /** Calls held at once. */
  readonly calls: number;
}

/** Options of hostile answers: callers keep calling a tool whose upstream answers with an attack. */
export interface HostileAnswersOptions {
  readonly url: string;
  readonly token: string;
  /** The get_info tool that unlocks callTool. */
  readonly unlockTool: string;
  /** The hostile upstream's tool (redos, sse_flood). */
  readonly callTool: string;
  readonly arguments: Record<string, unknown>;
  /** Calls kept in flight at once. */
  readonly callers: number;
}

/** Options of the list churn: an upstream's tool list changes every few ms while `flag` exists. */
export interface ListChurnOptions {
  /** The file whose presence makes the hostile upstream churn (its --while-file). */
  readonly flag: string;
}

const [role = '', json = '{}'] = process.argv.slice(2);
let stopping = false;
const stopped = new Promise<void>((resolve) => {
  process.on('message', (message) => {
    if (message === 'stop') {
      stopping = true;
      resolve();
    }
  });
});
const send = (message: unknown) => process.send?.(message);

async function slowloris(options: SlowlorisOptions): Promise<Record<string, number>> {
  const stats = { opened: 0, refusedOnAccept: 0, answered408: 0, otherClose: 0, maxOpen: 0 };
  let open = 0;
  const header = `POST /mcp HTTP/1.1\r\nHost: ${options.host}\r\nUser-Agent: slow\r\nX-Pad: ${'a'.repeat(4096)}\r\n`;
  const live = new Set<Socket>();

  const start = (localAddress: string): void => {
    if (stopping) return;
    let received = '';
    let sent = 0;
    let connected = false;
    let timer: NodeJS.Timeout | undefined;
    const tick = () => {
      if (sent < header.length) socket.write(header[sent++] ?? '');
      timer = setTimeout(tick, options.byteEveryMs);
    };
    const socket = connect({ host: options.host, port: options.port, localAddress }, () => {
      connected = true;
      stats.opened += 1;
      open += 1;
      stats.maxOpen = Math.max(stats.maxOpen, open);
      // Each socket starts at a random phase, so the bytes arrive spread over time.
      timer = setTimeout(tick, Math.random() * options.byteEveryMs);
    });
    live.add(socket);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      live.delete(socket);
      if (connected) open -= 1;
      if (received.startsWith('HTTP/1.1 408')) stats.answered408 += 1;
      else if (received === '') stats.refusedOnAccept += 1;
      else stats.otherClose += 1;
      setTimeout(() => start(localAddress), options.reconnectAfterMs);
    });
  };

  for (const address of options.addresses) {
    for (let i = 0; i < options.socketsPerAddress; i++) start(address);
  }
  await sleep(500);
  send({ ready: true });
  await stopped;
  for (const socket of live) socket.destroy();
  return { ...stats, openAtStop: open };
}

async function batch(options: BatchOptions): Promise<Record<string, number>> {
  const headers = (session?: string, version = '2025-11-25') => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${options.token}`,
    'mcp-protocol-version': version,
    ...(session === undefined ? {} : { 'mcp-session-id': session }),
  });
  /** Completes the handshake and unlocks the read tool, so the batches really read the reference. */
  const unlocked = async (id: string, version: string): Promise<string> => {
    await (
      await fetch(options.url, {
        method: 'POST',
        headers: headers(id, version),
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const unlock = await fetch(options.url, {
      method: 'POST',
      headers: headers(id, version),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: options.unlockTool },
      }),
    });
    await unlock.text();
    return id;
  };
  const openSession = async (version: string): Promise<string> => {
    // The previous phase may have spent this principal's rate limit: wait it out, as a client would.
    for (let attempt = 0; attempt < 30; attempt++) {
      const init = await fetch(options.url, {
        method: 'POST',
        headers: headers(undefined, version),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: {
            protocolVersion: version,
            capabilities: {},
            clientInfo: { name: 'attacker', version: '1' },
          },
        }),
      });
      await init.text();
      const id = init.headers.get('mcp-session-id');
      if (id !== null) return unlocked(id, version);
      if (init.status !== 429) throw new Error(`attacker initialize answered ${init.status}`);
      await sleep(Number(init.headers.get('retry-after') ?? 1) * 1000);
    }
    throw new Error('attacker initialize still rate limited after 30 attempts');
  };
  const current = await openSession('2025-11-25');
  const legacy = await openSession('2025-03-26');
  // Ids differ across requests: two requests in flight with one id on one session are refused as such.
  let nextId = 10;
  const reads = (n: number) =>
    JSON.stringify(
      Array.from({ length: n }, () => ({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: { name: options.readTool, arguments: {} },
      })),
    );
  const big = reads(options.elements);
  // Every shape of batch the issue reproduced, plus the largest batch a 2025-03-26 session may send.
  type Kind = readonly [string, () => RequestInit];
  const max: Kind = [
    '16-element batch, 2025-03-26 session',
    () => ({ method: 'POST', headers: headers(legacy, '2025-03-26'), body: reads(16) }),
  ];
  const reproduced: Kind[] = [
    ['big batch, 2025-11-25 session', () => ({ method: 'POST', headers: headers(current), body: big })],
    [
      'big batch, 2025-03-26 session',
      () => ({ method: 'POST', headers: headers(legacy, '2025-03-26'), body: big }),
    ],
    ['big batch, no session', () => ({ method: 'POST', headers: headers(), body: big })],
  ];
  const kinds: readonly Kind[] = options.mode === 'allowance' ? [max] : [...reproduced, max];
  const stats: Record<string, number> = { requests: 0, responseBytes: 0, errors: 0 };
  const worker = async (offset: number) => {
    for (let i = offset; !stopping; i++) {
      const [label, init] = kinds[i % kinds.length] ?? kinds[0] ?? ['', () => ({})];
      try {
        const response = await fetch(options.url, init());
        const body = await response.arrayBuffer();
        stats.requests = (stats.requests ?? 0) + 1;
        stats.responseBytes = (stats.responseBytes ?? 0) + body.byteLength;
        const key = `${label} -> ${response.status}`;
        stats[key] = (stats[key] ?? 0) + 1;
        const retryAfter = Number(response.headers.get('retry-after') ?? 0);
        if (options.mode === 'allowance' && response.status === 429) await sleep(retryAfter * 1000);
      } catch {
        stats.errors = (stats.errors ?? 0) + 1;
      }
    }
  };
  const workers = Array.from({ length: options.workers }, (_, i) => worker(i));
  send({ ready: true, bodyBytes: Buffer.byteLength(big) });
  await stopped;
  await Promise.all(workers);
  return stats;
}

const MODERN = '2026-07-28';
const modernMeta = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'attacker', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

async function wideJson(options: WideJsonOptions): Promise<Record<string, number>> {
  const wide = Object.fromEntries(Array.from({ length: options.keys }, (_, i) => [`k${i}`, i]));
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${options.token}`,
  };
  const init = await fetch(options.url, {
    method: 'POST',
    headers: { ...base, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'attacker', version: '1' },
      },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id') ?? '';
  const bodies: Array<[string, RequestInit]> = [
    [
      '2025 session',
      {
        method: 'POST',
        headers: { ...base, 'mcp-protocol-version': '2025-11-25', 'mcp-session-id': session },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: wide } }),
      },
    ],
    [
      '2026-07-28',
      {
        method: 'POST',
        headers: { ...base, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/list',
          params: { _meta: { ...modernMeta, ...wide } },
        }),
      },
    ],
  ];
  const stats: Record<string, number> = { requests: 0, errors: 0 };
  const worker = async (offset: number) => {
    for (let i = offset; !stopping; i++) {
      const [label, request] = bodies[i % bodies.length] ?? bodies[0] ?? ['', {}];
      try {
        const response = await fetch(options.url, request);
        const text = await response.text();
        const code = /"code":(-?\d+)/.exec(text)?.[1] ?? 'none';
        stats.requests = (stats.requests ?? 0) + 1;
        const key = `${label} -> ${response.status} ${code}`;
        stats[key] = (stats[key] ?? 0) + 1;
      } catch {
        stats.errors = (stats.errors ?? 0) + 1;
      }
    }
  };
  const workers = Array.from({ length: options.workers }, (_, i) => worker(i));
  send({ ready: true, bodyBytes: Buffer.byteLength(String(bodies[0]?.[1].body ?? '')) });
  await stopped;
  await Promise.all(workers);
  return stats;
}

async function listen(options: ListenOptions): Promise<Record<string, number>> {
  const stats: Record<string, number> = { opened: 0, errors: 0, maxOpen: 0 };
  const aborts = new Set<AbortController>();
  let open = 0;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'subscriptions/listen',
    params: { _meta: modernMeta, notifications: { toolsListChanged: true } },
  });
  const worker = async () => {
    while (!stopping) {
      const abort = new AbortController();
      aborts.add(abort);
      try {
        const response = await fetch(options.url, {
          method: 'POST',
          signal: abort.signal,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${options.token}`,
            'mcp-protocol-version': MODERN,
            'mcp-method': 'subscriptions/listen',
          },
          body,
        });
        const key = `listen -> ${response.status}`;
        stats[key] = (stats[key] ?? 0) + 1;
        if (response.status === 200 && response.body !== null) {
          // Held open: read (and drop) whatever the server sends until the attack stops.
          stats.opened = (stats.opened ?? 0) + 1;
          open += 1;
          stats.maxOpen = Math.max(stats.maxOpen ?? 0, open);
          const reader = response.body.getReader();
          while (!(await reader.read()).done) {}
          open -= 1;
        } else {
          await response.arrayBuffer();
        }
      } catch {
        if (!stopping) stats.errors = (stats.errors ?? 0) + 1;
      }
      aborts.delete(abort);
    }
  };
  const workers = Array.from({ length: options.workers }, () => worker());
  await sleep(500);
  send({ ready: true });
  await stopped;
  for (const abort of aborts) abort.abort();
  await Promise.all(workers);
  return stats;
}

async function reload(options: ReloadOptions): Promise<Record<string, number>> {
  const { mkdir, rename, rm, writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const names = Array.from({ length: options.skills }, (_, i) => `bench-added-${i}`);
  const stats: Record<string, number> = { added: 0, removed: 0 };
  const write = async () => {
    for (const name of names) {
      await mkdir(join(options.staging, name), { recursive: true });
      await writeFile(
        join(options.staging, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: Added skill ${name}, for the reload attack.\n---\nBody.\n`,
      );
    }
  };
  await write();
  send({ ready: true });
  // Each burst moves every skill in (a reload of all of them), waits for the watcher and the build, then
  // takes them out again (another reload).
  while (!stopping) {
    for (const name of names) await rename(join(options.staging, name), join(options.root, name));
    stats.added = (stats.added ?? 0) + 1;
    await Promise.race([sleep(4000), stopped]);
    for (const name of names) await rename(join(options.root, name), join(options.staging, name));
    stats.removed = (stats.removed ?? 0) + 1;
    await Promise.race([sleep(4000), stopped]);
  }
  await rm(options.staging, { recursive: true, force: true });
  return stats;
}

/** A 2025-11-25 session of the attacker's, unlocked for one skill; returns its headers. */
async function attackerSession(
  url: string,
  token: string,
  unlockTool: string,
): Promise<Record<string, string>> {
  const base = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': '2025-11-25',
  };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'attacker', version: '1' },
      },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  if (session === null) throw new Error(`initialize answered ${init.status}`);
  const headers = { ...base, 'mcp-session-id': session };
  const post = async (body: unknown) =>
    (await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })).text();
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: unlockTool, arguments: {} } });
  return headers;
}

async function slotMonopoly(options: SlotMonopolyOptions): Promise<Record<string, number>> {
  const stats = { sent: 0, answered: 0 };
  const headers = await attackerSession(options.url, options.token, options.unlockTool);
  const abort = new AbortController();
  // Each worker keeps one ten-minute call in flight, sending the next as soon as one is answered.
  const worker = async (id: number) => {
    while (!stopping) {
      stats.sent += 1;
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 100 + id,
        method: 'tools/call',
        params: { name: options.callTool, arguments: { ms: 600_000 } },
      });
      try {
        await (await fetch(options.url, { method: 'POST', headers, body, signal: abort.signal })).text();
        stats.answered += 1;
      } catch {
        // Aborted at the end.
      }
    }
  };
  const workers = Array.from({ length: options.calls }, (_, i) => worker(i));
  send({ ready: true });
  await stopped;
  abort.abort();
  await Promise.all(workers);
  return stats;
}

async function hostileAnswers(options: HostileAnswersOptions): Promise<Record<string, number>> {
  const stats = { sent: 0, answered: 0, toolErrors: 0 };
  const headers = await attackerSession(options.url, options.token, options.unlockTool);
  const abort = new AbortController();
  // Each caller sends the next call as soon as one is answered.
  const caller = async (id: number) => {
    while (!stopping) {
      stats.sent += 1;
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 100 + id,
        method: 'tools/call',
        params: { name: options.callTool, arguments: options.arguments },
      });
      try {
        const text = await (
          await fetch(options.url, { method: 'POST', headers, body, signal: abort.signal })
        ).text();
        stats.answered += 1;
        if (text.includes('"isError":true')) stats.toolErrors += 1;
      } catch {
        // Aborted at the end.
      }
    }
  };
  const callers = Array.from({ length: options.callers }, (_, i) => caller(i));
  send({ ready: true });
  await stopped;
  abort.abort();
  await Promise.all(callers);
  return stats;
}

async function listChurn(options: ListChurnOptions): Promise<Record<string, number>> {
  const { rm, writeFile } = await import('node:fs/promises');
  await writeFile(options.flag, 'churn\n');
  send({ ready: true });
  await stopped;
  await rm(options.flag, { force: true });
  return {};
}

const run =
  role === 'hostileAnswers'
    ? hostileAnswers(JSON.parse(json) as HostileAnswersOptions)
    : role === 'slotMonopoly'
      ? slotMonopoly(JSON.parse(json) as SlotMonopolyOptions)
      : role === 'listChurn'
        ? listChurn(JSON.parse(json) as ListChurnOptions)
        : role === 'wideJson'
          ? wideJson(JSON.parse(json) as WideJsonOptions)
          : role === 'listen'
            ? listen(JSON.parse(json) as ListenOptions)
            : role === 'reload'
              ? reload(JSON.parse(json) as ReloadOptions)
              : role === 'slowloris'
                ? slowloris(JSON.parse(json) as SlowlorisOptions)
                : role === 'batch'
                  ? batch(JSON.parse(json) as BatchOptions)
                  : Promise.reject(new Error(`unknown role ${role}`));
const cpuAtStart = process.cpuUsage();
run.then(
  (stats) => {
    const cpu = process.cpuUsage(cpuAtStart);
    send({ stats: { ...stats, attackerCpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)) } });
    process.disconnect?.();
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
