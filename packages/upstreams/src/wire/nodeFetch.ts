import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { claimCallSignal } from '../calls/callScope.js';
import { UpstreamsError } from '../upstreamsError.js';
import { createBoundedEventStream } from './boundedEventStream.js';

/** Options of createNodeFetch. */
export interface NodeFetchOptions {
  /** Most bytes of one answer (a JSON body, or one event of a stream); past it the request fails. */
  readonly maxBodyBytes: number;
  /** Most bytes of one answer to a tools/call (the call's max_result_bytes and some room for the envelope). */
  readonly maxCallAnswerBytes?: number;
}

// A stream that answers requests carries their answers and notifications (progress): a few answers' worth.
const STREAM_ANSWERS = 4;

/** What the response to a POST answers: its requests' ids, and the bounds that apply to it. */
interface Answering {
  readonly requestIds: readonly (string | number)[];
  readonly maxAnswerBytes: number;
  /** Undefined for a stream that lives as long as the connection (GET, subscriptions/listen). */
  readonly maxStreamBytes: number | undefined;
}

/** A request of exchange(): its body whole, its headers plain. */
interface Exchange {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly signal?: AbortSignal;
}

/** A fetch for the MCP client's HTTP transport, and the release of its kept-alive connections. */
export interface NodeFetch {
  readonly fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  /** Closes every connection it keeps (in-flight requests end through their abort signal). */
  close(): void;
}

/**
 * The fetch the pool gives each HTTP upstream's transport: node:http with its own kept-alive connections
 * instead of the global fetch. A proxied call is two requests on the gateway's event loop (the caller's and
 * this one), and the global fetch's per-request work (WHATWG Request objects, web streams, an abort listener
 * and a resource-timing entry each) was most of what the gateway spent on an upstream call
 * (docs/upstreams.md, "Proxy overhead"). Redirects are never followed here (the transport decides), bodies
 * other than event streams are read whole up to a cap, and a request that finds its kept-alive connection
 * closed by the server is sent once more on a new one, as node:http advises.
 */
export function createNodeFetch(options: NodeFetchOptions): NodeFetch {
  const answering = (body: RequestInit['body']): Answering => {
    const sent = sentRequests(body);
    const maxAnswerBytes = sent.some((r) => r.method === 'tools/call')
      ? Math.min(options.maxCallAnswerBytes ?? options.maxBodyBytes, options.maxBodyBytes)
      : options.maxBodyBytes;
    const lasting = sent.length === 0 || sent.some((r) => r.method === 'subscriptions/listen');
    return {
      requestIds: sent.map((r) => r.id),
      maxAnswerBytes,
      maxStreamBytes: lasting ? undefined : maxAnswerBytes * STREAM_ANSWERS,
    };
  };
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, noDelay: true }),
    'https:': new HttpsAgent({ keepAlive: true, noDelay: true }),
  };
  // One request on the kept-alive agents; resolves with the response once its head is in. Aborting the
  // signal destroys the request (and its response) at any point; the listener goes with the response.
  const exchange = (url: URL, init: Exchange, retry: boolean): Promise<IncomingMessage> =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const { signal, body } = init;
      if (signal?.aborted === true) {
        reject(abortReason(signal));
        return;
      }
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') {
        reject(new TypeError(`unsupported URL protocol ${url.protocol}`));
        return;
      }
      const request = (secure ? httpsRequest : httpRequest)(url, {
        method: init.method,
        headers: init.headers,
        agent: secure ? agents['https:'] : agents['http:'],
      });
      const onAbort = (): void => {
        request.destroy(abortReason(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = (): void => signal?.removeEventListener('abort', onAbort);
      let answered = false;
      request.once('error', (error: NodeJS.ErrnoException) => {
        if (answered) return;
        done();
        // The server closed a kept-alive connection as we reused it: the request never got there.
        if (retry && request.reusedSocket && error.code === 'ECONNRESET' && signal?.aborted !== true) {
          resolve(exchange(url, init, false));
          return;
        }
        reject(signal?.aborted === true ? abortReason(signal) : error);
      });
      request.once('response', (response: IncomingMessage) => {
        answered = true;
        response.once('close', done);
        resolve(response);
      });
      request.end(body);
    });
  const send = async (url: URL, init: RequestInit, retry: boolean): Promise<Response> => {
    const signal = init.signal ?? undefined;
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError('only string and byte request bodies are supported');
    }
    const bounds = answering(body);
    const response = await exchange(
      url,
      {
        method: init.method ?? 'GET',
        headers: plainHeaders(init.headers),
        ...(body === undefined || body === null ? {} : { body }),
        ...(signal === undefined ? {} : { signal }),
      },
      retry,
    );
    const status = response.statusCode ?? 502;
    const headers = responseHeaders(response);
    const head = { status, statusText: response.statusMessage ?? '', headers };
    if (isEventStream(headers.get('content-type'))) {
      // Streamed as it comes, each event and the whole stream bounded.
      const bounded = createBoundedEventStream({
        maxEventBytes: bounds.maxAnswerBytes,
        maxStreamBytes: bounds.maxStreamBytes,
        requestIds: bounds.requestIds,
        onCut: () => {
          response.unpipe(bounded);
          response.destroy();
        },
      });
      response.once('error', (error) => bounded.destroy(error));
      response.pipe(bounded);
      return new Response(Readable.toWeb(bounded) as ReadableStream<Uint8Array>, head);
    }
    const whole = await readBody(response, bounds.maxAnswerBytes, signal);
    return new Response(status === 204 || status === 304 ? null : whole, head);
  };
  return {
    fetch: (url, init = {}) => send(new URL(url), endingWithItsCall(init), true),
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

/**
 * A response body read whole, at most maxBytes (past it the response is destroyed and UpstreamsError
 * RESPONSE_TOO_LARGE thrown).
 */
function readBody(response: IncomingMessage, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        reject(
          new UpstreamsError(
            'RESPONSE_TOO_LARGE',
            `the upstream's response is larger than ${maxBytes} bytes`,
          ),
        );
        return;
      }
      chunks.push(chunk);
    });
    response.once('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)),
    );
    response.once('error', (error) => reject(signal?.aborted === true ? abortReason(signal) : error));
    response.once('close', () => {
      if (!response.complete)
        reject(signal?.aborted === true ? abortReason(signal) : new Error('socket hang up'));
    });
  });
}

/** The requests of a JSON-RPC body the transport sends (a string; batches are arrays). */
function sentRequests(body: RequestInit['body']): { id: string | number; method: string }[] {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const out: { id: string | number; method: string }[] = [];
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof message !== 'object' || message === null) continue;
    const { id, method } = message as { id?: unknown; method?: unknown };
    if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string')
      out.push({ id, method });
  }
  return out;
}

function plainHeaders(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  (headers instanceof Headers ? headers : new Headers(headers)).forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

function responseHeaders(response: IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    const value = raw[i + 1];
    if (name !== undefined && value !== undefined) headers.append(name, value);
  }
  return headers;
}

// A call's request ends with its call too: a timed-out or cancelled call's stream must not stay open. Not a
// notification though: the client sends notifications/cancelled just before the call ends.
function endingWithItsCall(init: RequestInit): RequestInit {
  const call = isNotification(init.body) ? undefined : claimCallSignal();
  if (call === undefined) return init;
  const own = init.signal ?? undefined;
  return { ...init, signal: own === undefined ? call : AbortSignal.any([own, call]) };
}

// The client serializes a notification as {"jsonrpc":"2.0","method":"notifications/...".
const NOTIFICATION = '{"jsonrpc":"2.0","method":"notifications/';
function isNotification(body: RequestInit['body']): boolean {
  return typeof body === 'string' && body.startsWith(NOTIFICATION);
}

function isEventStream(contentType: string | null): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === 'text/event-stream';
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}
