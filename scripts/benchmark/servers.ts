// Child-process servers for the benchmark: the gateway, and the two references it is compared with.
// Usage: tsx --conditions=@skillgate/source servers.ts <gateway|sdk-reference|fastify-reference|…> <skillsRoot> [disclosure] [sandbox]
// Prints {"port": N} on stdout once listening. Each adds GET /__bench/mem (forces GC, returns memory); the
// ceilings also GET /__bench/cpu (the process's CPU time so far, in microseconds: hotPaths.ts).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { Agent, createServer, request as httpRequest, type ServerResponse } from 'node:http';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '@skillgate/config';
import { createGateway } from '@skillgate/gateway';
import { createCatalog, loadSkills, type ToolDefinition } from '@skillgate/skills';
import express from 'express';
import Fastify from 'fastify';
import { z } from 'zod';

const [kind, root = '', disclosure = 'namespaced', sandbox = 'auto'] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
const memory = () => {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss };
};
const cpu = () => {
  const { user, system } = process.cpuUsage();
  return { micros: user + system };
};
const ready = (port: number) => process.stdout.write(`${JSON.stringify({ port })}\n`);
const sendJson = (res: ServerResponse, value: unknown) => {
  const bytes = Buffer.from(JSON.stringify(value));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
  res.end(bytes);
};

/** The tools a fresh session of the gateway lists, so the references serve the same payload. */
async function listedTools(): Promise<readonly ToolDefinition[]> {
  const { skills } = await loadSkills({ roots: [root], validation: 'lenient' });
  const catalog = createCatalog(skills, { maxNameLength: 48, asyncEnabled: false, maxTimeoutSeconds: 300 });
  return catalog.listTools({ disclosure: disclosure as 'namespaced', unlocked: new Set() });
}

if (kind === 'gateway') {
  // SKILLGATE_REDIS_URL plus BENCH_KEY_PREFIX put the gateway's state in Redis (the replicas benchmark).
  const prefix = process.env.BENCH_KEY_PREFIX;
  // BENCH_UPSTREAMS: the `upstreams` config section as JSON (the upstream overhead benchmark).
  const upstreams = process.env.BENCH_UPSTREAMS;
  const config = parseConfig(
    {
      ...(upstreams === undefined ? {} : { upstreams: JSON.parse(upstreams) as unknown }),
      ...(prefix === undefined ? {} : { state: { backend: 'redis', key_prefix: prefix } }),
      skills: {
        roots: [root],
        disclosure,
        prompts: process.env.BENCH_PROMPTS === '1',
        // BENCH_WATCH=1: reload on changes under the root (reloadStallPhase.ts).
        watch: process.env.BENCH_WATCH === '1',
      },
      rate_limit: { requests_per_second: 0 },
      // 100 skills in catalog mode list 102 tools, 1,000 skills 1,002: past the default cap of 100 the gateway
      // would serve the search surface instead, and the rows measure full lists of get_info tools.
      // BENCH_MAX_LISTED: another cap (reloadStallPhase.ts lists past it, in search mode).
      tools: { max_listed: Number(process.env.BENCH_MAX_LISTED ?? 100_000) },
      // The load is raw HTTP that never re-lists after list_changed: a first get_info would wait out
      // relist_wait_ms for a tools/list that never comes (a second per session opened by the bench).
      sessions: { max_sessions: 200_000, max_per_principal: 200_000, relist_wait_ms: 0 },
      scripts: { max_concurrent: 16, max_concurrent_per_principal: 16, sandbox },
      logging: { level: 'silent' },
      // BENCH_TRACING: an OTLP/HTTP endpoint; every request is traced and exported there (tracingPhase.ts).
      ...(process.env.BENCH_TRACING === undefined
        ? {}
        : { observability: { tracing: { endpoint: process.env.BENCH_TRACING, sample_ratio: 1 } } }),
      // BENCH_CONFIG: more top-level sections as JSON, e.g. auth and credentials (credentialsPhase.ts).
      ...(process.env.BENCH_CONFIG === undefined ? {} : (JSON.parse(process.env.BENCH_CONFIG) as object)),
    },
    { baseDir: process.cwd() },
  );
  // BENCH_DIRECT=0: every request takes the SDK's path (hotPaths.ts and directPathsPhase.ts measure both).
  const gateway = await createGateway(config, { directAnswers: process.env.BENCH_DIRECT !== '0' });
  gateway.app.get('/__bench/mem', async () => memory());
  gateway.app.get('/__bench/cpu', async () => cpu());
  gateway.app.get('/__bench/catalog', async () => ({ skills: gateway.catalogs.current.skills.size }));
  // BENCH_PROFILE=1: a CPU profile of the gateway between two requests (profileHotPaths.ts).
  if (process.env.BENCH_PROFILE === '1') {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    gateway.app.post('/__bench/profile/start', async () => {
      await session.post('Profiler.start');
      return {};
    });
    gateway.app.post('/__bench/profile/stop', async () => (await session.post('Profiler.stop')).profile);
  }
  const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  // The gateway listens before its upstreams connect; the benchmarks measure connected ones.
  await gateway.upstreamsSettled;
  ready(Number(new URL(address).port));
} else if (kind === 'gateway-search') {
  // Tenants of one search catalog under the default rate limit (searchFloodPhase.ts): BENCH_TOKEN_A and
  // BENCH_TOKEN_B, every skill each. BENCH_RATE_LIMIT=off: no rate limit (the rows timing calls back to
  // back). BENCH_ALLOW_LISTS=N: N more tokens `bench-allow-list-<i>-0123456789`, each with its own allow-list
  // (the skills starting with a-c and one more). /metrics is served on its own port (GET /__bench/metrics).
  const others = readdirSync(root).filter((name) => !/^[a-c]/.test(name));
  const allowLists = Number(process.env.BENCH_ALLOW_LISTS ?? 0);
  const tenants = Array.from({ length: allowLists }, (_, i) => {
    process.env[`BENCH_ALLOW_LIST_${i}`] = `bench-allow-list-${i}-0123456789`;
    return {
      name: `allow-list-${i}`,
      token_env: `BENCH_ALLOW_LIST_${i}`,
      skills: ['[a-c]*', others[i] ?? ''],
    };
  });
  const config = parseConfig(
    {
      skills: { roots: [root], disclosure: 'search' },
      ...(process.env.BENCH_RATE_LIMIT === 'off' ? { rate_limit: { requests_per_second: 0 } } : {}),
      auth: {
        tokens: [
          { name: 'tenant-a', token_env: 'BENCH_TOKEN_A', skills: ['*'] },
          { name: 'tenant-b', token_env: 'BENCH_TOKEN_B', skills: ['*'] },
          ...tenants,
        ],
      },
      observability: { metrics_port: 0 },
      logging: { level: 'silent' },
    },
    { baseDir: process.cwd() },
  );
  const gateway = await createGateway(config);
  gateway.app.get('/__bench/mem', async () => memory());
  gateway.app.get('/__bench/cpu', async () => cpu());
  let metricsBase: string | undefined;
  gateway.app.get('/__bench/metrics', async () => (await fetch(`${metricsBase}/metrics`)).text());
  const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  metricsBase = await gateway.listenMetrics();
  ready(Number(new URL(address).port));
} else if (kind === 'gateway-oauth') {
  // A static token and an OAuth issuer (the benchmark's own JWKS server) side by side (oauth.ts).
  const config = parseConfig(
    {
      skills: { roots: [root], modern_disclosure: 'catalog' },
      rate_limit: { requests_per_second: 0 },
      auth: {
        tokens: [{ name: 'bench-static', token_env: 'BENCH_STATIC_TOKEN', skills: ['*'] }],
        oauth: {
          issuer: process.env.BENCH_OAUTH_ISSUER,
          audience: 'skillgate-bench',
          jwks_uri: process.env.BENCH_OAUTH_ISSUER,
          required_scopes: ['mcp'],
          grants: [{ scope: 'skills:all', skills: ['*'] }],
        },
      },
      logging: { level: 'silent' },
    },
    { baseDir: process.cwd() },
  );
  const gateway = await createGateway(config);
  const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  ready(Number(new URL(address).port));
} else if (kind === 'sdk-reference') {
  // Written the way the SDK's examples do it: express, one McpServer + transport per session.
  const tools = await listedTools();
  const app = express();
  app.use(express.json({ limit: '4mb' }));
  const transports = new Map<string, StreamableHTTPServerTransport>();
  app.get('/__bench/mem', (_req, res) => {
    res.json(memory());
  });
  app.post('/mcp', async (req, res) => {
    const id = req.header('mcp-session-id');
    let transport = id === undefined ? undefined : transports.get(id);
    if (transport === undefined && isInitializeRequest(req.body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => {
          if (transport !== undefined) transports.set(sid, transport);
        },
      });
      const server = new McpServer({ name: 'reference', version: '1.0.0' });
      for (const tool of tools) {
        server.registerTool(
          tool.name,
          { description: tool.description, inputSchema: { args: z.array(z.string()).optional() } },
          async () => ({
            content: [{ type: 'text', text: 'ok' }],
          }),
        );
      }
      await server.connect(transport);
    }
    if (transport === undefined) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request' }, id: null });
      return;
    }
    await transport.handleRequest(req, res, req.body);
  });
  const server = createServer(app).listen(0, '127.0.0.1', () => {
    const address = server.address();
    ready(typeof address === 'object' && address !== null ? address.port : 0);
  });
} else if (kind === 'fastify-reference') {
  // The HTTP ceiling: a bare Fastify route answering every POST with a precomputed tools/list body.
  const tools = await listedTools();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { tools } });
  const app = Fastify();
  app.get('/__bench/mem', async () => memory());
  app.get('/__bench/cpu', async () => cpu());
  app.post('/mcp', async (_req, reply) => reply.type('application/json').send(body));
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  ready(Number(new URL(address).port));
} else if (kind === 'fastify-spliced') {
  // The 2026-07-28 ceiling: a bare Fastify route sending a precomputed tools/list body with only the id
  // spliced in (what answering from a cache at best costs).
  const tools = await listedTools();
  const tail = `,"result":${JSON.stringify({ tools, ttlMs: 60_000, cacheScope: 'public' })}}`;
  const app = Fastify();
  app.get('/__bench/mem', async () => memory());
  app.get('/__bench/cpu', async () => cpu());
  app.post('/mcp', async (req, reply) => {
    const id = (req.body as { id?: unknown } | undefined)?.id ?? null;
    return reply.type('application/json').send(`{"jsonrpc":"2.0","id":${JSON.stringify(id)}${tail}`);
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  ready(Number(new URL(address).port));
} else if (kind === 'fastify-replay') {
  // The ceiling of any path (hotPaths.ts): a bare Fastify route sending back the gateway's own answer bytes,
  // set with PUT /__bench/replay, with only the JSON-RPC id spliced in.
  let answer = { head: '', tail: '', type: 'application/json' };
  const app = Fastify({ bodyLimit: 16 * 2 ** 20 });
  app.get('/__bench/mem', async () => memory());
  app.get('/__bench/cpu', async () => cpu());
  app.put('/__bench/replay', async (req) => {
    const { body, type, id } = req.body as { body: string; type: string; id: number };
    const marker = `"id":${id}`;
    const at = body.indexOf(marker);
    answer = { head: body.slice(0, at + 5), tail: body.slice(at + marker.length), type };
    return { ok: at >= 0 };
  });
  app.post('/mcp', async (req, reply) => {
    const id = (req.body as { id?: unknown } | undefined)?.id ?? null;
    return reply.type(answer.type).send(`${answer.head}${JSON.stringify(id)}${answer.tail}`);
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  ready(Number(new URL(address).port));
} else if (kind === 'raw-spawn') {
  // The ceiling of a script run (sandboxRuns.ts): a raw node:http server that spawns gen-00000's check.sh
  // with bash for every POST, collects its output and answers a tools/call result with Content-Length.
  const dir = join(root, 'gen-00000');
  const script = join(dir, 'scripts', 'check.sh');
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const id = (JSON.parse(body) as { id?: unknown }).id ?? null;
      const child = spawn('bash', [script], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      child.stderr.resume();
      child.on('close', (code) => {
        const text = JSON.stringify({
          jsonrpc: '2.0',
          id,
          result: { content: [{ type: 'text', text: out }], isError: code !== 0 },
        });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      });
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    ready(typeof address === 'object' && address !== null ? address.port : 0);
  });
} else if (kind === 'raw-replay') {
  // The machine's ceiling of any path (hotPaths.ts): a bare node:http server that reads and parses the body,
  // then writes the gateway's own answer bytes with Content-Length and only the JSON-RPC id spliced in. No
  // framework, no routing beyond the method: what answering at all costs on this machine.
  // Long answers are kept as bytes and written corked around the id (no copy, no encoding per request), as
  // the gateway keeps its long answers (docs/protocol-eras.md); short ones are one string encoded per request,
  // which is cheaper for them. Either way the cheapest way to send these bytes: a ceiling.
  const LONG = 8192;
  let answer = {
    head: '',
    tail: '',
    headBytes: Buffer.alloc(0),
    tailBytes: Buffer.alloc(0),
    type: 'application/json',
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'GET' && req.url === '/__bench/mem') return sendJson(res, memory());
      if (req.method === 'GET' && req.url === '/__bench/cpu') return sendJson(res, cpu());
      if (req.method === 'PUT' && req.url === '/__bench/replay') {
        const { body, type, id } = JSON.parse(text) as { body: string; type: string; id: number };
        const marker = `"id":${id}`;
        const at = body.indexOf(marker);
        const head = body.slice(0, at + 5);
        const tail = body.slice(at + marker.length);
        answer = { head, tail, headBytes: Buffer.from(head), tailBytes: Buffer.from(tail), type };
        return sendJson(res, { ok: at >= 0 });
      }
      const id = JSON.stringify((JSON.parse(text) as { id?: unknown }).id ?? null);
      if (answer.headBytes.length + answer.tailBytes.length < LONG) {
        const bytes = Buffer.from(`${answer.head}${id}${answer.tail}`);
        res.writeHead(200, { 'content-type': answer.type, 'content-length': bytes.length });
        res.end(bytes);
        return;
      }
      const idBytes = Buffer.from(id);
      const length = answer.headBytes.length + idBytes.length + answer.tailBytes.length;
      res.writeHead(200, { 'content-type': answer.type, 'content-length': length });
      res.cork();
      res.write(answer.headBytes);
      res.write(idBytes);
      res.end(answer.tailBytes);
    });
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    ready(typeof address === 'object' && address !== null ? address.port : 0);
  });
} else if (kind === 'raw-proxy') {
  // The floor of a proxied upstream call (upstreamOverhead.ts): a transparent node:http reverse proxy to the
  // URL given as root, on a kept-alive agent, every body passed through unparsed. No MCP, no checks, no
  // routing: what a proxy in node pays for the two requests of a call on this machine.
  const target = new URL(root);
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = { ...req.headers };
      delete headers.host;
      delete headers.connection;
      const upstream = httpRequest(target, { method: req.method ?? 'POST', headers, agent });
      upstream.once('error', () => {
        res.writeHead(502);
        res.end();
      });
      upstream.once('response', (answer) => {
        const back = { ...answer.headers };
        delete back.connection;
        delete back['keep-alive'];
        if ((answer.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.writeHead(answer.statusCode ?? 502, back);
          answer.pipe(res);
          return;
        }
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.once('end', () => {
          const bytes = Buffer.concat(body);
          delete back['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, { ...back, 'content-length': bytes.length });
          res.end(bytes);
        });
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    ready(typeof address === 'object' && address !== null ? address.port : 0);
  });
} else {
  process.stderr.write(`unknown server kind ${kind}\n`);
  process.exit(2);
}
