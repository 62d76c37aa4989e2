import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type JSONRPCMessage,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import {
  answerByteLength,
  answerText,
  type JsonAnswer,
  messageJson,
  writeJsonAnswer,
} from '../direct/resultWriter.js';
import type { SessionAnswers } from '../direct/sessionAnswers.js';
import { SessionCalls } from '../direct/sessionCalls.js';
import { GatewayError, type GatewayErrorCode } from '../errors/gatewayError.js';
import { isCancellation, isRequest, isResponse, postedMessages } from './jsonRpcShapes.js';
import {
  boundedResponse,
  KEEP_ALIVE_MS,
  type NativeTransportLimits,
  type PostExchange,
  SSE_HEADERS,
  sseEvent,
} from './postExchange.js';

/** A session transport the Fastify route can hand a raw request to (the SDK's transport has the same shape). */
export interface SessionTransport extends Transport {
  handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void>;
}

/**
 * MCP streamable HTTP (server side) written against node:http directly, implementing the SDK's
 * Transport so that all protocol handling stays in the SDK's Server. Unlike the SDK's Node transport it
 * does not convert each request to a web-standard Request/Response, and it answers a request whose handler
 * sent nothing but its result as plain JSON, switching to SSE as soon as a related notification is sent
 * (so get_info's list_changed still rides its own response stream).
 */
export class NativeHttpTransport implements SessionTransport {
  readonly sessionId: string;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly exchanges = new Map<RequestId, PostExchange>();
  private standalone: ServerResponse | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private closed = false;
  private initialized = false;
  /** The revision the session negotiated (read off the initialize result). */
  private revision: string | undefined;
  private readonly limits: NativeTransportLimits;
  /** The session's direct path (direct/sessionAnswers.ts); set before the first request arrives. */
  set direct(answers: SessionAnswers) {
    this.sessionCalls.answers = answers;
  }
  /** Requests on the direct path, answered through this transport as the Server would answer them. */
  private readonly sessionCalls = new SessionCalls({
    send: (message, options) => this.send(message, options),
    sendResponse: (id, json) => this.sendResponse(id, json),
    toServer: (message) => this.onmessage?.(message),
    onError: (error) => this.onerror?.(error),
  });

  constructor(sessionId: string, limits: NativeTransportLimits) {
    this.sessionId = sessionId;
    this.limits = limits;
  }

  async start(): Promise<void> {}

  async handleRequest(req: IncomingMessage, res: ServerResponse, parsedBody?: unknown): Promise<void> {
    if (this.closed) {
      this.error(res, 'SESSION_NOT_FOUND', 'Session not found');
      return;
    }
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      this.error(res, 'SESSION_PROTOCOL_VERSION', `Bad Request: Unsupported protocol version: ${version}`);
      return;
    }
    switch (req.method) {
      case 'POST':
        return this.handlePost(req, res, parsedBody);
      case 'GET':
        return this.handleGet(req, res);
      case 'DELETE':
        res.writeHead(200, { 'mcp-session-id': this.sessionId }).end();
        await this.close();
        return;
      default:
        this.error(res, 'METHOD_NOT_ALLOWED', 'Method not allowed.');
        return;
    }
  }

  private handlePost(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    const accept = req.headers.accept ?? '';
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      this.error(
        res,
        'NOT_ACCEPTABLE',
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
      return;
    }
    const posted = postedMessages(body, {
      revision: this.revision,
      initialized: this.initialized,
      maxBatch: this.limits.maxBatch,
    });
    if ('refusal' in posted) {
      this.error(res, 'INVALID_REQUEST', `Invalid Request: ${posted.refusal}`);
      return;
    }
    const { messages, batch, requestIds: ids } = posted;
    if (posted.initialize) this.initialized = true;
    if (ids.length === 0) {
      res.writeHead(202, { 'mcp-session-id': this.sessionId }).end();
      for (const message of messages) this.dispatch(message);
      return;
    }
    // Two requests in flight with one id would receive each other's results: refuse the second.
    if (ids.some((id) => this.exchanges.has(id)) || (ids.length > 1 && new Set(ids).size !== ids.length)) {
      this.error(res, 'INVALID_REQUEST', 'Invalid Request: a request with this id is already in flight');
      return;
    }
    const exchange: PostExchange = {
      res,
      ids,
      responses: new Set(),
      mode: 'pending',
      batch,
      bytes: 0,
      queue: batch ? messages : [],
    };
    for (const id of exchange.ids) this.exchanges.set(id, exchange);
    // A client that hangs up loses its answers; nothing else may be written to its socket.
    res.on('close', () => {
      exchange.mode = 'done';
      for (const id of exchange.ids) if (this.exchanges.get(id) === exchange) this.exchanges.delete(id);
    });
    if (batch) this.dispatchNext(exchange);
    else for (const message of messages) this.dispatch(message);
  }

  /**
   * Hands one message on: a plain hot request of an initialized session to the session's direct path, anything
   * else to the SDK's Server. The direct path answers as the Server would: its result or error on the
   * request's exchange, nothing after a cancellation, and related notifications on the same stream.
   */
  private dispatch(message: JSONRPCMessage): void {
    if (isCancellation(message)) this.sessionCalls.cancel(message.params);
    else if (isRequest(message) && this.revision !== undefined && this.sessionCalls.take(message)) return;
    this.onmessage?.(message);
  }

  /**
   * Hands a batch's next messages to the Server, up to and including the next request. The batch runs one
   * request at a time, each started on a later turn of the event loop, so a batch of heavy calls (16 reads
   * of large files, 16 script runs) never lands on the event loop, or the script slots, all at once, and
   * other clients' requests are served in between. A client that hangs up stops its batch.
   */
  private dispatchNext(exchange: PostExchange): void {
    while (exchange.mode !== 'done') {
      const message = exchange.queue.shift();
      if (message === undefined) return;
      this.dispatch(message);
      if (isRequest(message)) return;
    }
  }

  private handleGet(req: IncomingMessage, res: ServerResponse): void {
    if (!(req.headers.accept ?? '').includes('text/event-stream')) {
      this.error(res, 'NOT_ACCEPTABLE', 'Not Acceptable: Client must accept text/event-stream');
      return;
    }
    if (this.standalone !== undefined) {
      this.error(res, 'STREAM_CONFLICT', 'Conflict: Only one SSE stream is allowed per session');
      return;
    }
    res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
    res.flushHeaders();
    this.standalone = res;
    // Comments keep proxies from closing an idle stream.
    this.keepAlive = setInterval(() => this.write(res, ': keepalive\n\n'), KEEP_ALIVE_MS);
    this.keepAlive.unref();
    res.on('close', () => {
      if (this.standalone !== res) return;
      clearInterval(this.keepAlive);
      this.standalone = undefined;
    });
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const response = isResponse(message);
    // The first response of a session is the initialize result: it names the negotiated revision.
    if (response && this.revision === undefined) this.noteRevision(message);
    const relatedId = response ? message.id : options?.relatedRequestId;
    const exchange = relatedId === undefined ? undefined : this.exchanges.get(relatedId);
    // Serialized once: the size bound, SSE and plain JSON all use this string.
    const json = messageJson(message, response ? message.id : undefined);
    const bounded = boundedResponse(
      json,
      response ? message.id : undefined,
      this.limits.maxResponseBytes,
      exchange?.bytes ?? 0,
    );
    this.deliver(bounded, response, relatedId, exchange);
  }

  /** Sends a response already written as JSON (the direct path's, direct/resultWriter.ts), as send would. */
  private sendResponse(id: RequestId, json: JsonAnswer): void {
    const exchange = this.exchanges.get(id);
    this.deliver(
      boundedResponse(json, id, this.limits.maxResponseBytes, exchange?.bytes ?? 0),
      true,
      id,
      exchange,
    );
  }

  /** Writes a serialized message where it belongs: its request's exchange, or the GET stream. */
  private deliver(
    json: JsonAnswer,
    response: boolean,
    relatedId: RequestId | undefined,
    exchange: PostExchange | undefined,
  ): void {
    if (relatedId === undefined) {
      // Unrelated server messages go on the GET stream; without one they have nowhere to go.
      if (this.standalone !== undefined) this.write(this.standalone, sseEvent(answerText(json)));
      return;
    }
    if (exchange === undefined || exchange.mode === 'done') return;
    if (exchange.batch) exchange.bytes += answerByteLength(json);
    // A batch streams each answer as it is ready: no answer waits for, or is joined with, the others.
    if (!response || exchange.batch) this.toSse(exchange);
    if (!response) {
      this.write(exchange.res, sseEvent(answerText(json)));
      return;
    }
    exchange.responses.add(relatedId);
    if (exchange.mode === 'sse') this.write(exchange.res, sseEvent(answerText(json)));
    if (exchange.ids.some((id) => !exchange.responses.has(id))) {
      if (exchange.batch) setImmediate(() => this.dispatchNext(exchange));
      return;
    }
    for (const id of exchange.ids) this.exchanges.delete(id);
    if (exchange.mode === 'sse') {
      exchange.res.end();
    } else {
      writeJsonAnswer(exchange.res, json, this.sessionId);
    }
    exchange.mode = 'done';
  }

  /**
   * Writes to a stream the client may not be reading: output left unread past the byte bound closes the
   * stream, so a client that stops reading holds at most that much memory.
   */
  private write(res: ServerResponse, chunk: string): void {
    if (res.destroyed) return;
    // As bytes: writableLength counts a string chunk in UTF-16 units, so multi-byte text left unread could
    // pass the bound threefold before the stream was closed.
    res.write(Buffer.from(chunk, 'utf8'));
    if (res.writableLength > this.limits.maxResponseBytes) res.destroy();
  }

  private noteRevision(message: JSONRPCMessage): void {
    const result = 'result' in message ? (message.result as { protocolVersion?: unknown }) : undefined;
    if (typeof result?.protocolVersion === 'string') this.revision = result.protocolVersion;
  }

  private toSse(exchange: PostExchange): void {
    if (exchange.mode !== 'pending') return;
    exchange.mode = 'sse';
    exchange.res.writeHead(200, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.sessionCalls.abortAll();
    this.standalone?.end();
    this.standalone = undefined;
    for (const exchange of new Set(this.exchanges.values())) {
      if (exchange.mode === 'sse') exchange.res.end();
      else if (exchange.mode === 'pending') exchange.res.destroy();
      exchange.mode = 'done';
    }
    this.exchanges.clear();
    this.onclose?.();
  }

  /** Answers a request this transport refuses, through the gateway's one error table (errors/gatewayError.ts). */
  private error(res: ServerResponse, code: GatewayErrorCode, message: string): void {
    const error = new GatewayError(code, message);
    res.writeHead(error.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(error.toJsonRpc(null)));
  }
}
