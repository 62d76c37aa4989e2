// pnpm bench:attacks — a healthy client's tools/list latency on an idle gateway and while slow-connection
// (slowloris), batch, wide-JSON, listen-flood and reload attacks run, and its upstream call's latency while
// upstream attacks run (slot monopoly, list churn, an outputSchema ReDoS, an endless SSE event), all in one run against the real CLI. Phases are interleaved in rounds
// (idle, attack, attack, ..., idle, attack, ...) so that load from elsewhere on the machine falls on all of
// them alike. Prints each phase's p50/p99 and its p99 as a ratio of the idle p99 (target: within 2x), and
// writes bench-results/attacks.json. Env: BENCH_ATTACK_ROUNDS (default 3), BENCH_ATTACK_SECONDS (per phase
// and round, default 10), BENCH_ATTACK_RATE (healthy requests per second, default 50), BENCH_LOG_LEVEL
// (gateway log level, default info), BENCH_ATTACK_ONLY=upstream (only the upstream phases and their idle).
import { fork, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { cpus, loadavg, setPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HOSTILE_PROCESS_UPSTREAM, HOSTILE_UPSTREAM, startHttpFixture } from '@skillgate/testkit';
import type {
  BatchOptions,
  HostileAnswersOptions,
  ListChurnOptions,
  ListenOptions,
  ReloadOptions,
  SlotMonopolyOptions,
  SlowlorisOptions,
  WideJsonOptions,
} from './attackers.js';
import { percentile } from './support.js';

const REPO = join(import.meta.dirname, '../..');
const ROUNDS = Number(process.env.BENCH_ATTACK_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_ATTACK_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_ATTACK_RATE ?? 50);
const HEALTHY_TOKEN = 'bench-healthy-token-0123456789';
const ATTACKER_TOKEN = 'bench-attacker-token-0123456789';
const ACCEPT = 'application/json, text/event-stream';

/** Starts the answering attacker upstream (ReDoS outputSchema, endless SSE event) over HTTP. */
const startAnsweringUpstream = () => startHttpFixture(HOSTILE_UPSTREAM, { args: ['--name', 'evil'] });
const UPSTREAM_ONLY = process.env.BENCH_ATTACK_ONLY === 'upstream';

/**
 * The gateway and the healthy client run slightly above normal priority where allowed (root), so that
 * other work on a shared machine disturbs the comparison less; the attackers run at the lowest.
 */
let raisedPriority = true;
const raisePriority = (pid: number): void => {
  try {
    setPriority(pid, -5);
  } catch {
    raisedPriority = false;
  }
};

/** A TCP port that was free a moment ago. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Polls /readyz until the gateway answers (60 s at most). */
async function waitUntilReady(url: URL): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const ok = await fetch(new URL('/readyz', url)).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await sleep(100);
  }
  throw new Error('gateway not ready after 60 s');
}

/** A gateway CLI process and its MCP URL. */
interface RunningGateway {
  readonly url: URL;
  readonly port: number;
  /** CPU seconds (user + system) the gateway process has used so far; NaN where /proc is missing. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the gateway CLI with the default limits, two tokens and the given rate limit; with `watchedRoot`,
 * that folder is a third skill root and `skills.watch` is on.
 */
async function startGateway(
  rateLimit: 'default' | 'off',
  watchedRoot?: string,
  extraConfig: readonly string[] = [],
): Promise<RunningGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'skillgate-attacks-'));
  // Chosen here, not by the gateway: below info level the CLI does not log the address it listens on.
  const port = await freePort();
  const config = join(dir, 'skillgate.yaml');
  const roots = [
    join(REPO, 'examples/skills'),
    join(REPO, 'apps/gateway/test/fixtures/skills'),
    ...(watchedRoot === undefined ? [] : [watchedRoot]),
  ];
  await writeFile(
    config,
    [
      `server: { host: 127.0.0.1, port: ${port} }`,
      `skills: { roots: ${JSON.stringify(roots)}${watchedRoot === undefined ? '' : ', watch: true'} }`,
      'auth:',
      '  tokens:',
      '    - { name: healthy, token_env: BENCH_HEALTHY_TOKEN }',
      '    - { name: attacker, token_env: BENCH_ATTACKER_TOKEN }',
      ...(rateLimit === 'off' ? ['rate_limit: { requests_per_second: 0 }'] : []),
      `logging: { level: ${process.env.BENCH_LOG_LEVEL ?? 'info'} }`,
      ...extraConfig,
      '',
    ].join('\n'),
  );
  const child = spawn(
    process.execPath,
    [
      '--conditions=@skillgate/source',
      '--import',
      'tsx',
      join(REPO, 'apps/gateway/src/cli.ts'),
      'serve',
      '--config',
      config,
    ],
    {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, BENCH_HEALTHY_TOKEN: HEALTHY_TOKEN, BENCH_ATTACKER_TOKEN: ATTACKER_TOKEN },
    },
  );
  if (child.pid !== undefined) raisePriority(child.pid);
  // The log is read to the end and dropped: a full pipe would block the gateway's synchronous logger.
  child.stdout?.resume();
  const exited = new Promise<never>((_resolve, reject) =>
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`))),
  );
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  await Promise.race([exited, waitUntilReady(url)]);
  // From here on an exit is the stop() below.
  exited.catch(() => {});
  return {
    url,
    port,
    cpuSeconds: async () => {
      // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name, in clock ticks (100/s).
      const stat = await readFile(`/proc/${child.pid}/stat`, 'utf8').catch(() => '');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const headers = (session?: string) => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  authorization: `Bearer ${HEALTHY_TOKEN}`,
  'mcp-protocol-version': '2025-11-25',
  ...(session === undefined ? {} : { 'mcp-session-id': session }),
});
const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

/** What the healthy client sends in a phase, and what its answer must contain. */
interface HealthyRequest {
  readonly body: string;
  readonly expect: string;
}
const LISTING: HealthyRequest = { body: LIST, expect: '"tools"' };
// The healthy client's call of an upstream tool (the gateway of the upstream phases).
const UPSTREAM_CALL: HealthyRequest = {
  body: JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'skill_shared_call_echo', arguments: { text: 'healthy' } },
  }),
  expect: 'healthy',
};

/** Opens the healthy client's 2025-11-25 session and warms it up (JIT, connection pool). */
async function openHealthySession(url: URL, warmUp: HealthyRequest = LISTING): Promise<string> {
  const init = await fetch(url, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'healthy', version: '1' },
      },
    }),
  });
  await init.text();
  const id = init.headers.get('mcp-session-id');
  if (id === null) throw new Error(`initialize answered ${init.status}`);
  const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await (await fetch(url, { method: 'POST', headers: headers(id), body: initialized })).text();
  if (warmUp !== LISTING) {
    const unlock = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'skill_shared_get_info', arguments: {} },
    });
    await (await fetch(url, { method: 'POST', headers: headers(id), body: unlock })).text();
  }
  for (let i = 0; i < 200; i++)
    await (await fetch(url, { method: 'POST', headers: headers(id), body: warmUp.body })).text();
  return id;
}

/** The healthy client's samples of one phase, over all rounds. */
interface Samples {
  readonly latencies: number[];
  failures: number;
  readonly attackers: unknown[];
  /** Gateway CPU seconds and wall seconds while this phase was measured. */
  cpu: number;
  wall: number;
}

/** Sends tools/list at RATE per second for SECONDS (the next one waits if one runs late), into `into`. */
async function measure(
  gateway: RunningGateway,
  session: string,
  into: Samples,
  request: HealthyRequest = LISTING,
): Promise<void> {
  const { url } = gateway;
  const cpuBefore = await gateway.cpuSeconds();
  const started = performance.now();
  for (let i = 0; ; i++) {
    const due = started + (i * 1000) / RATE;
    if (due > started + SECONDS * 1000) break;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const t0 = performance.now();
    try {
      const response = await fetch(url, { method: 'POST', headers: headers(session), body: request.body });
      const text = await response.text();
      if (response.status !== 200 || !text.includes(request.expect)) into.failures += 1;
    } catch {
      into.failures += 1;
    }
    into.latencies.push(performance.now() - t0);
  }
  into.cpu += (await gateway.cpuSeconds()) - cpuBefore;
  into.wall += (performance.now() - started) / 1000;
}

/** Runs an attacker child (attackers.ts), measures while it runs, and keeps its stats. */
async function underAttack(
  role:
    | 'slowloris'
    | 'batch'
    | 'wideJson'
    | 'listen'
    | 'reload'
    | 'slotMonopoly'
    | 'listChurn'
    | 'hostileAnswers',
  options:
    | HostileAnswersOptions
    | SlowlorisOptions
    | BatchOptions
    | WideJsonOptions
    | ListenOptions
    | ReloadOptions
    | SlotMonopolyOptions
    | ListChurnOptions,
  during: () => Promise<void>,
  into: Samples,
): Promise<void> {
  const child = fork(join(import.meta.dirname, 'attackers.ts'), [role, JSON.stringify(options)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // The attacker stands in for clients on other machines: at the lowest CPU priority, the load generator's
  // own work does not take the gateway's CPU on this one, and what is measured is what the attack costs
  // the gateway.
  if (child.pid !== undefined) setPriority(child.pid, 19);
  const messages: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  child.on('message', (m: Record<string, unknown>) => {
    messages.push(m);
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (key: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = messages.find((m) => key in m);
      if (found !== undefined) return found;
      if (child.exitCode !== null) throw new Error(`${role} attacker exited with ${child.exitCode}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        child.once('exit', () => resolve());
      });
    }
  };
  await next('ready');
  // Let the attack reach its steady state before measuring.
  await sleep(2000);
  await during();
  child.send('stop');
  into.attackers.push((await next('stats')).stats);
}

const hostileCalls = (
  url: URL,
  callTool: string,
  args: Record<string, unknown>,
  callers: number,
): HostileAnswersOptions => ({
  url: url.href,
  token: ATTACKER_TOKEN,
  unlockTool: 'skill_evil_get_info',
  callTool,
  arguments: args,
  callers,
});

const slowloris = (port: number, addresses: number, perAddress: number): SlowlorisOptions => ({
  host: '127.0.0.1',
  port,
  addresses: Array.from({ length: addresses }, (_, i) => `127.0.0.${i + 2}`),
  socketsPerAddress: perAddress,
  byteEveryMs: 2000,
  reconnectAfterMs: 1000,
});

const batches = (url: URL, mode: BatchOptions['mode']): BatchOptions => ({
  mode,
  url: url.href,
  token: ATTACKER_TOKEN,
  workers: 4,
  elements: 1000,
  readTool: 'skill_gateway-probe_read_big_txt',
  unlockTool: 'skill_gateway-probe_get_info',
});

const ms = (n: number) => n.toFixed(1);

async function main(): Promise<void> {
  const load = [loadavg()[0] ?? 0];
  raisePriority(process.pid);
  const limited = await startGateway('default');
  // The reload attack adds its skills under this root, which the rate-limit-off gateway watches.
  const watched = await mkdtemp(join(tmpdir(), 'skillgate-attacks-watched-'));
  const unlimited = await startGateway('off', watched);
  // The upstream phases' gateway: an 8-slot upstream shared by the healthy client and the attacker, and an
  // upstream whose tool list (with 300 clashing names) changes every 120 ms while the churn flag exists.
  const churnDir = await mkdtemp(join(tmpdir(), 'skillgate-attacks-churn-'));
  const churnFlag = join(churnDir, 'churn');
  const answering = await startAnsweringUpstream();
  const upstreamGateway = await startGateway('off', undefined, [
    'upstreams:',
    `  - { id: shared, command: ${JSON.stringify([process.execPath, HOSTILE_PROCESS_UPSTREAM, 'spy'])}, timeout_seconds: 600 }`,
    `  - { id: churn, command: ${JSON.stringify([process.execPath, HOSTILE_PROCESS_UPSTREAM, 'churn', '--every', '120', '--clashes', '300', '--while-file', churnFlag])}, sandbox: { read: [${JSON.stringify(churnDir)}] } }`,
    `  - { id: evil, url: ${JSON.stringify(answering.url)} }`,
  ]);
  const phases = new Map<string, Samples>();
  const samples = (name: string): Samples => {
    let found = phases.get(name);
    if (found === undefined) {
      found = { latencies: [], failures: 0, attackers: [], cpu: 0, wall: 0 };
      phases.set(name, found);
    }
    return found;
  };
  try {
    const a = { gateway: limited, session: await openHealthySession(limited.url) };
    const b = { gateway: unlimited, session: await openHealthySession(unlimited.url) };
    const u = {
      gateway: upstreamGateway,
      session: await openHealthySession(upstreamGateway.url, UPSTREAM_CALL),
    };
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`round ${round}/${ROUNDS}\n`);
      // The healthy client calls an upstream tool; the attacker holds calls to the same upstream, 16 at
      // once for its 8 slots (4 a principal).
      await measure(u.gateway, u.session, samples('idle, upstream call'), UPSTREAM_CALL);
      let upstreamInto = samples(
        'slot monopoly: one principal holds 16 calls to an 8-slot upstream, upstream call',
      );
      await underAttack(
        'slotMonopoly',
        {
          url: upstreamGateway.url.href,
          token: ATTACKER_TOKEN,
          unlockTool: 'skill_shared_get_info',
          callTool: 'skill_shared_call_sleep',
          calls: 16,
        },
        () => measure(u.gateway, u.session, upstreamInto, UPSTREAM_CALL),
        upstreamInto,
      );
      // Another upstream's list (300 clashing names) changing every 120 ms: coalesced rebuilds from the skills
      // read before, each problem logged once.
      upstreamInto = samples('list churn: an upstream list changes every 120 ms, upstream call');
      await underAttack(
        'listChurn',
        { flag: churnFlag },
        () => measure(u.gateway, u.session, upstreamInto, UPSTREAM_CALL),
        upstreamInto,
      );
      // A tool whose outputSchema pattern is ^(a+)+$, answered with 34 a's and a '!': validated by a
      // backtracking engine it held the event loop for hours; 4 callers at once.
      upstreamInto = samples('ReDoS: outputSchema ^(a+)+$ and 34 characters, 4 callers, upstream call');
      await underAttack(
        'hostileAnswers',
        hostileCalls(upstreamGateway.url, 'skill_evil_call_redos', { length: 34 }, 4),
        () => measure(u.gateway, u.session, upstreamInto, UPSTREAM_CALL),
        upstreamInto,
      );
      // A tool answered with one endless SSE event (565 MB for one call before the bound); 8 callers.
      upstreamInto = samples('SSE flood: one endless event per call, 8 callers, upstream call');
      await underAttack(
        'hostileAnswers',
        hostileCalls(upstreamGateway.url, 'skill_evil_call_sse_flood', {}, 8),
        () => measure(u.gateway, u.session, upstreamInto, UPSTREAM_CALL),
        upstreamInto,
      );
      if (UPSTREAM_ONLY) continue;
      await measure(a.gateway, a.session, samples('idle'));
      // 500 sockets from 10 client addresses (50 each, under the per-address cap): the headers timeout
      // (10 s) is what frees them.
      let into = samples('slowloris: 500 sockets from 10 addresses');
      await underAttack(
        'slowloris',
        slowloris(limited.port, 10, 50),
        () => measure(a.gateway, a.session, into),
        into,
      );
      // 500 sockets from one address: the per-address cap (128) refuses the rest on accept.
      into = samples('slowloris: 500 sockets from 1 address');
      await underAttack(
        'slowloris',
        slowloris(limited.port, 1, 500),
        () => measure(a.gateway, a.session, into),
        into,
      );
      // Four workers posting ~100 KB batches of 1,000 reads of a ~300 KB reference, as the issue reproduced,
      // with and without sessions, plus the largest batch a 2025-03-26 session may send; another principal.
      into = samples('batch: 4 workers, 1,000-element batches');
      await underAttack(
        'batch',
        batches(limited.url, 'mixed'),
        () => measure(a.gateway, a.session, into),
        into,
      );
      // One principal spending its whole rate limit on the heaviest batches it may send (16 reads each).
      into = samples('batch: rate limit spent on 16-read batches');
      await underAttack(
        'batch',
        batches(limited.url, 'allowance'),
        () => measure(a.gateway, a.session, into),
        into,
      );
      // The same batches with the rate limit off: what batch refusal and the batch bound alone achieve.
      await measure(b.gateway, b.session, samples('idle, rate limit off'));
      into = samples('batch, rate limit off');
      await underAttack(
        'batch',
        batches(unlimited.url, 'mixed'),
        () => measure(b.gateway, b.session, into),
        into,
      );
      // Three connections posting tools/list with a 60,000-key _meta (both eras), as the issue reproduced:
      // refused at parse (server.max_json_keys) before any validation.
      into = samples('wide JSON: 60,000-key _meta, 3 connections, rate limit off');
      await underAttack(
        'wideJson',
        { url: unlimited.url.href, token: ATTACKER_TOKEN, workers: 3, keys: 60_000 },
        () => measure(b.gateway, b.session, into),
        into,
      );
      // One principal opening subscriptions/listen streams as fast as it is answered, 64 at a time: it
      // holds its 16, the rest get 429.
      into = samples('listen flood: one principal, 64 at once, rate limit off');
      await underAttack(
        'listen',
        { url: unlimited.url.href, token: ATTACKER_TOKEN, workers: 64 },
        () => measure(b.gateway, b.session, into),
        into,
      );
      // 1,000 skills moved into a watched root and out again every 4 s: each move is a reload of them all.
      into = samples('reload: 1,000 skills added/removed under watch, rate limit off');
      await underAttack(
        'reload',
        { root: watched, staging: `${watched}-staging-${round}`, skills: 1000 },
        () => measure(b.gateway, b.session, into),
        into,
      );
    }
  } finally {
    await limited.stop();
    await unlimited.stop();
    await upstreamGateway.stop();
    await answering.stop();
    await rm(watched, { recursive: true, force: true });
    await rm(churnDir, { recursive: true, force: true });
  }
  load.push(loadavg()[0] ?? 0);

  const baselineOf = (name: string) =>
    name.includes('upstream call')
      ? 'idle, upstream call'
      : name.includes('rate limit off')
        ? 'idle, rate limit off'
        : 'idle';
  const summary = [...phases].map(([name, s]) => {
    const p99 = percentile(s.latencies, 99);
    const idle = percentile(phases.get(baselineOf(name))?.latencies ?? [], 99);
    const isIdle = name.startsWith('idle');
    return {
      phase: name,
      samples: s.latencies.length,
      failures: s.failures,
      p50: percentile(s.latencies, 50),
      p99,
      max: Math.max(...s.latencies),
      gatewayCpu: s.cpu / s.wall,
      ratio: p99 / idle,
      verdict: isIdle ? '' : p99 <= 2 * idle && s.failures === 0 ? 'PASS' : 'MISS',
      attackers: s.attackers,
    };
  });
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  process.stdout.write(
    `\nhealthy client: tools/list at ${RATE}/s, ${ROUNDS} rounds x ${SECONDS} s per phase; ${cpus().length} cores (${cpu}), ` +
      `Node ${process.version}; load average ${load.map((l) => l.toFixed(1)).join(' -> ')}; ` +
      `gateway and client at nice ${raisedPriority ? '-5' : '0'}, attackers at 19\n`,
  );
  console.table(
    summary.map((p) => ({
      phase: p.phase,
      samples: p.samples,
      failures: p.failures,
      'p50 ms': ms(p.p50),
      'p99 ms': ms(p.p99),
      'max ms': ms(p.max),
      'gateway CPU': Number.isNaN(p.gatewayCpu) ? '' : `${Math.round(p.gatewayCpu * 100)}%`,
      'p99 / idle p99': p.ratio.toFixed(2),
      verdict: p.verdict,
    })),
  );
  for (const p of summary) {
    if (p.attackers.length > 0)
      process.stdout.write(`${p.phase}, last round's attacker: ${JSON.stringify(p.attackers.at(-1))}\n`);
  }
  await mkdir(join(REPO, 'bench-results'), { recursive: true });
  await writeFile(
    join(REPO, 'bench-results/attacks.json'),
    `${JSON.stringify({ date: new Date().toISOString(), rounds: ROUNDS, seconds: SECONDS, rate: RATE, load, phases: summary.map(({ attackers, ...rest }) => ({ ...rest, attackers })) }, null, 2)}\n`,
  );
}

await main();
