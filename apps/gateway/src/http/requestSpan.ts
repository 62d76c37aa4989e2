import type { ServerResponse } from 'node:http';
import type { Attributes } from '@opentelemetry/api';
import { ATTR_CLIENT_ADDRESS, ATTR_CLIENT_PORT } from '@opentelemetry/semantic-conventions';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESOURCE_URI,
  ATTR_MCP_SESSION_ID,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
} from '@opentelemetry/semantic-conventions/incubating';
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import { boundStrings } from '../observability/boundStrings.js';
import type { Metrics } from '../observability/metrics.js';
import type { RequestSpan, TraceCarrier, Tracing } from '../observability/tracing.js';

/** Response bytes kept to read the answer's outcome from (a larger answer is judged by its HTTP status). */
const MAX_KEPT_BYTES = 256 * 1024;
/** Longest tool, prompt or resource name, or JSON-RPC request id, put in a span. */
const MAX_NAME_CHARS = 256;

type Params = Readonly<Record<string, unknown>>;

const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' ? boundStrings(value, MAX_NAME_CHARS) : undefined;

/** The object in `params._meta`, or undefined. */
const metaOf = (params: Params | undefined): TraceCarrier | undefined => {
  const meta = params?._meta;
  return meta !== null && typeof meta === 'object' ? (meta as TraceCarrier) : undefined;
};

/** The JSON-RPC answer to `id` in a JSON or SSE response body, if one is there. */
const answerIn = (text: string, id: unknown): Record<string, unknown> | undefined => {
  const bodies = text.startsWith('{')
    ? [text]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim());
  for (const body of bodies) {
    try {
      const message = JSON.parse(body) as unknown;
      if (message !== null && typeof message === 'object' && (message as { id?: unknown }).id === id)
        return message as Record<string, unknown>;
    } catch {
      // Not JSON (a partial event, a comment): not the answer.
    }
  }
  return undefined;
};

/** Options of startRequestSpan. */
export interface RequestSpanOptions {
  readonly tracing: Tracing;
  readonly metrics: Metrics;
  readonly request: FastifyRequest;
  readonly principal: Principal;
  /** Where the answer is written (by the SDK's transport or a direct path). */
  readonly response: ServerResponse;
}

/**
 * Starts the SERVER span of one JSON-RPC request in a POST body (a batch or a notification gets none), named
 * `{mcp.method.name} {target}` with the OpenTelemetry MCP attributes, parented on the caller's
 * `params._meta.traceparent` (SEP-414) or its `traceparent` header. The span ends when the response does;
 * the answer is read back (bounded) for `error.type`, and its duration goes to the operation histogram.
 * Never records argument values, file contents or tokens.
 */
export function startRequestSpan(options: RequestSpanOptions): RequestSpan | undefined {
  const { request, response } = options;
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const message = body as { readonly method?: unknown; readonly id?: unknown; readonly params?: unknown };
  const method = message.method;
  const id = message.id;
  if (typeof method !== 'string' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const params =
    message.params !== null && typeof message.params === 'object' ? (message.params as Params) : undefined;
  const attributes: Attributes = {
    [ATTR_MCP_METHOD_NAME]: boundStrings(method, MAX_NAME_CHARS),
    // A client picks its ids: bounded like every other client string (a 20 KB id made a 20 KB attribute).
    [ATTR_JSONRPC_REQUEST_ID]: boundStrings(String(id), MAX_NAME_CHARS),
    'skillgate.principal': options.principal.id,
    [ATTR_CLIENT_ADDRESS]: request.ip,
  };
  const port = request.socket.remotePort;
  if (port !== undefined) attributes[ATTR_CLIENT_PORT] = port;
  const headers = request.headers;
  const version =
    method === 'initialize' ? stringOf(params?.protocolVersion) : stringOf(headers['mcp-protocol-version']);
  if (version !== undefined) attributes[ATTR_MCP_PROTOCOL_VERSION] = version;
  const session = stringOf(headers['mcp-session-id']);
  if (session !== undefined) attributes[ATTR_MCP_SESSION_ID] = session;
  let target: string | undefined;
  if (method === 'tools/call') {
    target = stringOf(params?.name);
    if (target !== undefined) attributes[ATTR_GEN_AI_TOOL_NAME] = target;
    attributes[ATTR_GEN_AI_OPERATION_NAME] = GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL;
  } else if (method === 'prompts/get') target = stringOf(params?.name);
  else if (method === 'resources/read') {
    // A URI goes in its attribute, never in the span name (names are low-cardinality).
    const uri = stringOf(params?.uri);
    if (uri !== undefined) attributes[ATTR_MCP_RESOURCE_URI] = uri;
  }
  // SEP-414: the caller's `_meta` wins over HTTP headers (a proxy's span is not the agent's).
  const meta = metaOf(params);
  const carrier =
    meta !== undefined && typeof meta.traceparent === 'string'
      ? meta
      : { traceparent: headers.traceparent, tracestate: headers.tracestate };
  const name = target === undefined ? method : `${method} ${target}`;
  const span = options.tracing.startRequest(name, attributes, carrier);
  const started = performance.now();

  // The answer is read back from what is written: the SDK's transport writes it straight to the socket.
  const kept: Buffer[] = [];
  let keptBytes = 0;
  const keep = (chunk: unknown): void => {
    if (keptBytes >= MAX_KEPT_BYTES || chunk === undefined || chunk === null || typeof chunk === 'function')
      return;
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    kept.push(bytes);
    keptBytes += bytes.length;
  };
  const write = response.write;
  const end = response.end;
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    keep(chunk);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  response.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    keep(chunk);
    return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse['end'];

  response.once('close', () => {
    let errorType: string | undefined;
    if (response.statusCode >= 400) {
      errorType = String(response.statusCode);
      span.fail(errorType);
    } else if (!response.writableFinished) {
      errorType = 'cancelled';
      span.fail(errorType);
    }
    const answer = answerIn(Buffer.concat(kept).toString('utf8'), id);
    const error = answer?.error as { code?: unknown } | undefined;
    const result = answer?.result as { isError?: unknown } | undefined;
    if (error !== undefined && typeof error.code === 'number') {
      errorType = String(error.code);
      span.fail(errorType, error.code);
    } else if (result?.isError === true) {
      errorType = 'tool_error';
      span.fail(errorType);
    }
    span.end();
    options.metrics.observeOperation((performance.now() - started) / 1000, method, errorType);
  });
  return span;
}
