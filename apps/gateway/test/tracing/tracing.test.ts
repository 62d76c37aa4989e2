import { randomBytes } from 'node:crypto';
import { type HttpTestUpstream, startHttpUpstream, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlpReceiver.js';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

const TOKEN = 'agent-token-7c1e0f9a2b3d';
const SECRET_ARGUMENT = 'argument-value-that-must-not-be-traced';
const SERVER = 2;

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of open.splice(0).reverse()) await thing.close();
});

/** A W3C trace context as an agent would send it in `_meta` (SEP-414). */
const callerTrace = () => {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
};

async function start(
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<{ gw: TestGateway; otlp: OtlpReceiver }> {
  const otlp = await startOtlpReceiver();
  open.push(otlp);
  const gw = await startTestGateway(
    {
      auth: { tokens: [{ name: 'agent-a', token_env: 'AGENT_A_TOKEN' }] },
      observability: {
        tracing: { endpoint: otlp.url, protocol: 'http/json', service_name: 'skillgate-test' },
        // With auth, /metrics on the MCP port wants an admin token: scraped on its own port here.
        metrics_port: 0,
      },
      ...extra,
    },
    { ...process.env, AGENT_A_TOKEN: TOKEN, ...env },
  );
  open.push(gw);
  return { gw, otlp };
}

const spanNamed = async (otlp: OtlpReceiver, name: string, traceId?: string): Promise<ReceivedSpan> => {
  const find = () =>
    otlp.spans.find((s) => s.name === name && (traceId === undefined || s.traceId === traceId));
  await waitFor(() => find() !== undefined, { what: `span ${name}` });
  const span = find();
  if (span === undefined) throw new Error(`no span ${name}`);
  return span;
};

/** Nothing secret in any span: no token, no argument value, no script output. */
const expectNothingSecret = (otlp: OtlpReceiver): void => {
  const all = JSON.stringify(otlp.spans);
  expect(all).not.toContain(TOKEN);
  expect(all).not.toContain(SECRET_ARGUMENT);
  for (const body of otlp.bodies) expect(body.body.toString('utf8')).not.toContain(SECRET_ARGUMENT);
};

describe('OpenTelemetry traces of MCP requests (observability.tracing)', () => {
  it("a 2025-era session's tool call continues the client's trace from _meta, with the MCP attributes (v1 client)", async () => {
    const { gw, otlp } = await start();
    const client = await connectClient(gw.url, { token: TOKEN });
    open.push(client);
    const caller = callerTrace();
    await client.client.listTools();
    await client.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} });
    const run = await client.client.callTool({
      name: 'skill_text-stats_run_stats_py',
      arguments: { stdin: SECRET_ARGUMENT },
      _meta: { traceparent: caller.traceparent },
    });
    expect(run.isError).toBeFalsy();

    const span = await spanNamed(otlp, 'tools/call skill_text-stats_run_stats_py', caller.traceId);
    expect(span.parentSpanId).toBe(caller.spanId);
    expect(span.kind).toBe(SERVER);
    expect(span.serviceName).toBe('skillgate-test');
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'skill_text-stats_run_stats_py',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.session.id': client.transport.sessionId,
      'skillgate.skill.name': 'text-stats',
      'skillgate.principal': expect.any(String),
      'skillgate.disclosure': expect.any(String),
      'client.address': '127.0.0.1',
      'jsonrpc.request.id': expect.any(String),
    });
    expect(span.attributes['mcp.protocol.version']).toMatch(/^20\d\d-\d\d-\d\d$/);
    expect(span.attributes).not.toHaveProperty('error.type');

    // The run's own spans sit beneath the request: the run, its set-up (slot, sandbox, spawn) and the process.
    const script = await spanNamed(otlp, 'script text-stats', caller.traceId);
    expect(script.parentSpanId).toBe(span.spanId);
    const setUp = await spanNamed(otlp, 'script set-up', caller.traceId);
    const process = await spanNamed(otlp, 'script run', caller.traceId);
    expect(setUp.parentSpanId).toBe(script.spanId);
    expect(process.parentSpanId).toBe(script.spanId);

    // A request without trace context starts a trace of its own.
    const list = await spanNamed(otlp, 'tools/list');
    expect(list.parentSpanId).toBe('');
    const init = await spanNamed(otlp, 'initialize');
    expect(init.attributes['mcp.protocol.version']).toMatch(/^20\d\d-\d\d-\d\d$/);
    expectNothingSecret(otlp);
  });

  it('a 2026-07-28 request continues the trace of its traceparent header, and failures carry error.type (v2 client)', async () => {
    const { gw, otlp } = await start();
    const caller = callerTrace();
    const client = await connectV2(gw.url, { era: 'modern', token: TOKEN });
    open.push(client);
    await client.client.callTool({
      name: 'skill_text-stats_get_info',
      arguments: {},
      _meta: { traceparent: caller.traceparent },
    });
    const info = await spanNamed(otlp, 'tools/call skill_text-stats_get_info', caller.traceId);
    expect(info.parentSpanId).toBe(caller.spanId);
    expect(info.attributes).toMatchObject({
      'mcp.protocol.version': '2026-07-28',
      'skillgate.skill.name': 'text-stats',
    });
    expect(info.attributes).not.toHaveProperty('mcp.session.id');

    // An unknown tool: a JSON-RPC error, its code as error.type and rpc.response.status_code.
    await expect(
      client.client.callTool({ name: 'skill_nothing_here', arguments: { text: SECRET_ARGUMENT } }),
    ).rejects.toThrow();
    const unknown = await spanNamed(otlp, 'tools/call skill_nothing_here');
    expect(unknown.attributes['error.type']).toMatch(/^-32\d\d\d$/);
    expect(unknown.attributes['rpc.response.status_code']).toBe(unknown.attributes['error.type']);

    // The HTTP traceparent header is a parent too, when _meta carries none.
    const header = callerTrace();
    const response = await fetch(gw.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        traceparent: header.traceparent,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    const list = await spanNamed(otlp, 'tools/list', header.traceId);
    expect(list.parentSpanId).toBe(header.spanId);
    expect(list.attributes['jsonrpc.request.id']).toBe('7');
    expectNothingSecret(otlp);
  });

  it("an upstream call is a child span whose context reaches the upstream in its request's _meta", async () => {
    const http: HttpTestUpstream = await startHttpUpstream();
    open.push({ close: () => http.stop() });
    const { gw, otlp } = await start({ upstreams: [{ id: 'remote', url: http.url }] });
    const client = await connectClient(gw.url, { token: TOKEN });
    open.push(client);
    const caller = callerTrace();
    await client.client.callTool({ name: 'skill_remote_get_info', arguments: {} });
    const result = await client.client.callTool({
      name: 'skill_remote_call_headers',
      arguments: {},
      _meta: { traceparent: caller.traceparent },
    });
    const { metas } = result.structuredContent as { metas: Array<Record<string, unknown>> };
    const request = await spanNamed(otlp, 'tools/call skill_remote_call_headers', caller.traceId);
    const upstream = await spanNamed(otlp, 'tools/call headers', caller.traceId);
    expect(upstream.parentSpanId).toBe(request.spanId);
    expect(upstream.attributes).toMatchObject({
      'skillgate.upstream': 'remote',
      'gen_ai.tool.name': 'headers',
    });
    // The upstream got the trace context of the gateway's call span, not the caller's own span.
    expect(metas.at(-1)?.traceparent).toBe(`00-${caller.traceId}-${upstream.spanId}-01`);
  });

  it("the shared state's Redis round trips of a request are child spans of it, and nothing else is", async () => {
    const redis = await startRedisServer({ appendOnly: false });
    open.push(redis);
    const { gw, otlp } = await start(
      { state: { backend: 'redis', redis_url_env: 'TRACE_REDIS_URL' } },
      { TRACE_REDIS_URL: redis.url },
    );
    const client = await connectClient(gw.url, { token: TOKEN });
    open.push(client);
    const caller = callerTrace();
    // get_info unlocks the skill for the session: a script round trip to Redis within the request.
    await client.client.callTool({
      name: 'skill_text-stats_get_info',
      arguments: {},
      _meta: { traceparent: caller.traceparent },
    });
    const request = await spanNamed(otlp, 'tools/call skill_text-stats_get_info', caller.traceId);
    const redisSpans = () => otlp.spans.filter((s) => s.name.startsWith('redis '));
    await waitFor(() => redisSpans().some((s) => s.traceId === caller.traceId), { what: 'a redis span' });
    for (const span of redisSpans().filter((s) => s.traceId === caller.traceId)) {
      expect(span.parentSpanId).toBe(request.spanId);
      expect(span.attributes).toMatchObject({ 'db.system.name': 'redis' });
      expect(['redis command', 'redis script']).toContain(span.name);
    }
    // Round trips outside any request (heartbeats, expiry sweeps) start no trace of their own.
    expect(redisSpans().filter((s) => s.parentSpanId === '')).toEqual([]);
    expectNothingSecret(otlp);
  });

  it('sends OTLP protobuf by default, with the collector headers from the environment', async () => {
    const otlp = await startOtlpReceiver();
    open.push(otlp);
    const gw = await startTestGateway(
      {
        observability: {
          tracing: { endpoint: otlp.url, headers_from_env: { 'x-collector-key': 'COLLECTOR_KEY' } },
        },
      },
      { ...process.env, COLLECTOR_KEY: 'collector-key-1' },
    );
    open.push(gw);
    const client = await connectClient(gw.url);
    open.push(client);
    await client.client.listTools();
    await waitFor(() => otlp.bodies.some((b) => b.body.includes('tools/list')), {
      what: 'a protobuf export',
    });
    const body = otlp.bodies.find((b) => b.body.includes('tools/list'));
    expect(body?.contentType).toBe('application/x-protobuf');
    expect(body?.headers['x-collector-key']).toBe('collector-key-1');
  });

  it('with no endpoint, nothing is traced and the operation histogram stays empty', async () => {
    const gw = await startTestGateway();
    open.push(gw);
    const client = await connectClient(gw.url);
    open.push(client);
    await client.client.listTools();
    expect(await (await fetch(`${gw.base}/metrics`)).text()).not.toContain('mcp_server_operation_duration');
  });

  it('records mcp_server_operation_duration_seconds by method and error type while tracing is on', async () => {
    const { gw } = await start();
    const client = await connectClient(gw.url, { token: TOKEN });
    open.push(client);
    await client.client.listTools();
    await expect(client.client.callTool({ name: 'skill_nothing_here', arguments: {} })).rejects.toThrow();
    const text = await (await fetch(`${gw.metricsBase}/metrics`)).text();
    expect(text).toMatch(
      /mcp_server_operation_duration_seconds_count\{error_type="",mcp_method_name="tools\/list"\} 1/,
    );
    expect(text).toMatch(
      /mcp_server_operation_duration_seconds_count\{error_type="-32\d+",mcp_method_name="tools\/call"\} 1/,
    );
  });
});
