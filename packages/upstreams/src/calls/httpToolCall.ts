import { describeError } from '../describeError.js';
import type { DirectToolAnswer, DirectToolCall, DirectToolCaller } from '../types.js';
import type { CallPoster, ResponseReader } from '../wire/callPoster.js';
import { createEventStreamReader } from '../wire/eventStreamReader.js';
import { nextCallId } from './callScope.js';

/** Options of createHttpToolCaller: one connected HTTP upstream, as its handshake left it. */
export interface HttpToolCallerOptions {
  readonly url: URL;
  /** The connection's POSTs of calls (kept-alive, callbacks: callPoster.ts). */
  readonly poster: CallPoster;
  /** The configured headers (credentials) of the upstream. */
  readonly headers: Readonly<Record<string, string>>;
  /** The negotiated protocol version. */
  readonly protocolVersion: string;
  /** The session of a 2025-era connection that has one. */
  readonly sessionId: string | undefined;
  /** The `_meta` envelope every request of a 2026-07-28 connection carries; undefined on a 2025-era one. */
  readonly envelope: Readonly<Record<string, unknown>> | undefined;
  /** Most bytes of the answer: a JSON body, or one event of a stream. */
  readonly maxAnswerBytes: number;
  /** Most bytes of an event-stream answer. */
  readonly maxStreamBytes: number;
  /** Each message of the answer's stream that is not the answer (progress goes to its caller here). */
  readonly onMessage: (message: unknown) => void;
}

/**
 * The tools/call path of a connected HTTP upstream, beside its SDK client (which keeps the handshake,
 * tools/list and notifications): one POST with the session's headers on the connection's kept-alive
 * sockets (undici's dispatch, callPoster.ts), its JSON or event-stream answer read as it comes, by the
 * bounded parser of eventStreamReader.ts for a stream. The SDK
 * client's per-request work (era codec, Headers objects, web streams, a TextDecoderStream and a string
 * event parser, zod validation of the message and of the result) was most of what a proxied call cost the
 * gateway (docs/upstreams.md, "Proxy overhead"). A call that ends before its answer (timeout, cancel) tells
 * the upstream as the SDK does: notifications/cancelled on a 2025-era connection, the request's own end on
 * a 2026-07-28 one.
 */
export function createHttpToolCaller(options: HttpToolCallerOptions): DirectToolCaller {
  const modern = options.envelope !== undefined;
  // What every POST of the connection carries besides a credential.
  const protocol: Record<string, string> = {
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'mcp-protocol-version': options.protocolVersion,
    ...(options.sessionId === undefined ? {} : { 'mcp-session-id': options.sessionId }),
    ...(modern ? { 'mcp-method': 'tools/call' } : {}),
  };
  const base: Record<string, string> = { ...options.headers, ...protocol };
  // A 2026-07-28 call's headers name its tool (Mcp-Name): made once per tool. Only tools the upstream
  // exposes get here (upstreamCall.ts checks), so the map is as bounded as its listing; it starts over past
  // that anyway.
  const named = new Map<string, Record<string, string>>();
  const namedHeaders = (tool: string): Record<string, string> => {
    let headers = named.get(tool);
    if (headers === undefined) {
      if (named.size >= MAX_NAMED_HEADERS) named.clear();
      headers = { ...base, 'mcp-name': headerValue(tool) };
      named.set(tool, headers);
    }
    return headers;
  };
  const cancel = (id: string): void => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 'the call ended at the gateway' },
    });
    const headers = { ...base };
    delete headers['mcp-method'];
    const ignored = { push: () => undefined, end: () => undefined };
    void options.poster.post(options.url, { headers, body }, () => ignored).catch(() => undefined);
  };
  return async (call) => {
    const id = nextCallId();
    const meta = options.envelope === undefined ? call.meta : { ...options.envelope, ...(call.meta ?? {}) };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: call.tool, arguments: call.args, ...(meta === undefined ? {} : { _meta: meta }) },
    });
    const named = modern ? namedHeaders(call.tool) : base;
    // A caller's own credential replaces the connection's (which may be another identity's: discovery).
    const headers =
      call.headers === undefined ? named : { ...withoutKeys(named, options.headers), ...call.headers };
    try {
      return await options.poster.post(options.url, { headers, body, end: call.end }, (status, type) =>
        answerReader(status, type, { id, call, options }),
      );
    } catch (error) {
      if (call.end.aborted) return ended(id);
      return { kind: 'lost', message: describeError(error) };
    }
  };

  function ended(id: string): DirectToolAnswer {
    if (!modern) cancel(id);
    return { kind: 'aborted' };
  }
}

/** The headers without the connection's own credentials (a call that brings its own sends only those). */
function withoutKeys(
  headers: Readonly<Record<string, string>>,
  credentials: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!(name in credentials)) out[name] = value;
  return out;
}

// Most tools whose call headers are kept (a listing holds max_tools, 256 by default).
const MAX_NAMED_HEADERS = 1024;

interface Answering {
  readonly id: string;
  readonly call: DirectToolCall;
  readonly options: HttpToolCallerOptions;
}

// The reader of the response to our request: the answer is a JSON body, or the event of the stream that
// carries it; an error status has its body read (bounded) for the message.
function answerReader(
  status: number,
  contentType: string,
  answering: Answering,
): ResponseReader<DirectToolAnswer> {
  const { options, id } = answering;
  const type = mediaType(contentType);
  if (status < 200 || status > 299)
    return wholeBody(options.maxAnswerBytes, (text) => statusAnswer(status, text, answering));
  if (type === 'text/event-stream') return streamReader(answering);
  if (type !== 'application/json') {
    const failed: DirectToolAnswer = {
      kind: 'failed',
      message: `the upstream answered a call with content type ${contentType || 'none'}`,
    };
    return { push: () => failed, end: () => failed };
  }
  return wholeBody(options.maxAnswerBytes, (text, bytes) => {
    const message = parse(text);
    for (const one of Array.isArray(message) ? message : [message]) {
      const answer = answerIn(one, id, bytes);
      if (answer !== undefined) return answer;
      options.onMessage(one);
    }
    return { kind: 'failed', message: 'the upstream answered the call without its result' };
  });
}

// The answer to a call the upstream refused with an HTTP status.
function statusAnswer(status: number, text: string, { options, id, call }: Answering): DirectToolAnswer {
  // A caller's own credential refused: the caller's to renew (once), not the connection's.
  if (status === 401 && call.headers !== undefined) {
    return { kind: 'unauthorized', message: `the upstream refused the caller's credential (HTTP 401)` };
  }
  // A 2025-era server that lost our session (it restarted) answers 404.
  if (status === 404 && options.sessionId !== undefined) {
    return { kind: 'lost', message: `the upstream's session is gone (HTTP 404): ${text}` };
  }
  // A 2026-07-28 server answers a refused request with 400 and the JSON-RPC error.
  if (status === 400 && options.envelope !== undefined) {
    const error = errorOf(parse(text), id);
    if (error !== undefined) return error;
  }
  return { kind: 'failed', message: `Error POSTing to endpoint: ${text}` };
}

// A body read whole up to maxBytes, then made an answer; past the bound the call is RESULT_TOO_LARGE at once.
function wholeBody(
  maxBytes: number,
  answer: (text: string, bytes: number) => DirectToolAnswer,
): ResponseReader<DirectToolAnswer> {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    push(chunk) {
      size += chunk.length;
      if (size > maxBytes) {
        return { kind: 'tooLarge', message: `the upstream's response is larger than ${maxBytes} bytes` };
      }
      chunks.push(chunk);
      return undefined;
    },
    end: () =>
      answer(
        (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)).toString('utf8'),
        size,
      ),
  };
}

function streamReader({ options, id }: Answering): ResponseReader<DirectToolAnswer> {
  let answer: DirectToolAnswer | undefined;
  const reader = createEventStreamReader({
    maxEventBytes: options.maxAnswerBytes,
    maxStreamBytes: options.maxStreamBytes,
    onEvent: (event) => {
      if (answer !== undefined || event.event !== 'message') return;
      let message: unknown;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      // The event's data as UTF-16 code units: at most 3 UTF-8 bytes each.
      answer = answerIn(message, id, event.data.length * 3);
      if (answer === undefined) options.onMessage(message);
    },
  });
  return {
    // Stops reading at once past a bound, or once the answer is in: the rest of the stream is not read.
    push(chunk) {
      const over = reader.push(chunk);
      return over === undefined ? answer : { kind: 'tooLarge', message: over };
    },
    end: () => answer ?? { kind: 'failed', message: 'the upstream ended its stream without the result' },
  };
}

// The result or error our request got, if this message is its answer.
function answerIn(message: unknown, id: string, textBytes: number): DirectToolAnswer | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id: answered, result } = message as { id?: unknown; result?: unknown };
  if (answered !== id) return undefined;
  if (typeof result === 'object' && result !== null && !Array.isArray(result))
    return { kind: 'result', result, textBytes };
  return errorOf(message, id) ?? { kind: 'failed', message: 'the upstream answered the call with no result' };
}

function errorOf(message: unknown, id: string): DirectToolAnswer | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { id: answered, error } = message as { id?: unknown; error?: unknown };
  if (answered !== id || typeof error !== 'object' || error === null) return undefined;
  const text = (error as { message?: unknown }).message;
  return { kind: 'error', message: typeof text === 'string' ? text : 'the upstream answered an error' };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function mediaType(contentType: string): string {
  // The usual spellings as they are; anything else taken apart.
  if (contentType === 'application/json' || contentType === 'text/event-stream') return contentType;
  return contentType.split(';')[0]?.trim().toLowerCase() ?? '';
}

// An `Mcp-Name` header value as the SDK client writes it (SEP-2243): plain printable ASCII as it is, anything
// else (and empty, padded or sentinel-looking values) as `=?base64?<UTF-8 base64>?=`.
function headerValue(value: string): string {
  const plain =
    value !== '' &&
    value === value.trim() &&
    !(value.startsWith('=?base64?') && value.endsWith('?=')) &&
    /^[\t\x20-\x7e]*$/.test(value);
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
