import { type Dispatcher, Pool } from 'undici';
import type { CallEnd } from '../calls/callEnd.js';

/** Reads one response as it comes: a value from push ends the exchange with it (the rest is not read). */
export interface ResponseReader<T> {
  /** A chunk of the body; a value ends the exchange, and the response is not read further. */
  push(chunk: Buffer): T | undefined;
  /** The body ended (whole). */
  end(): T;
}

/** One POST of the direct tools/call path: its headers and body whole, ended by its call's end. */
export interface CallPost {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly end?: CallEnd;
}

/** POSTs on an upstream's kept-alive connections, each response read by callbacks, no streams. */
export interface CallPoster {
  /**
   * Sends the POST and hands its response to the reader `open` makes from its status and content type.
   * Rejects when the request fails before the reader has a value (connection refused or lost, aborted).
   */
  post<T>(
    url: URL,
    init: CallPost,
    open: (status: number, contentType: string) => ResponseReader<T>,
  ): Promise<T>;
  /** Closes every connection it keeps (requests in flight fail). */
  close(): void;
}

// Errors of a kept-alive socket the server had closed as we reused it: the request never got there.
const STALE_SOCKET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * The tools/call POSTs of an HTTP upstream on undici's `dispatch` (one pool of kept-alive connections per
 * origin): the response comes to callbacks as buffers, with no ClientRequest, IncomingMessage, Agent
 * bookkeeping or stream per call, which halved the HTTP client's CPU per call against node:http in a
 * side-by-side run (docs/upstreams.md, "Proxy overhead"). Nothing here times out by itself: the call's own
 * timer ends it (CallEnd). A request whose kept-alive socket turns out closed before any answer
 * came is sent once more on a new one, as the node:http path does.
 */
export function createCallPoster(): CallPoster {
  const pools = new Map<string, Pool>();
  // The upstream's URL is one object for the connection's life: its pool and path are found once.
  let last: { readonly url: URL; readonly pool: Pool; readonly path: string } | undefined;
  const targetOf = (url: URL): { readonly pool: Pool; readonly path: string } => {
    if (last?.url === url) return last;
    let pool = pools.get(url.origin);
    if (pool === undefined) {
      // No undici timeouts (a call's own deadline ends it); idle sockets close a little before the server's.
      pool = new Pool(url.origin, { headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 4000 });
      pools.set(url.origin, pool);
    }
    last = { url, pool, path: `${url.pathname}${url.search}` };
    return last;
  };
  const send = <T>(
    url: URL,
    init: CallPost,
    open: (status: number, contentType: string) => ResponseReader<T>,
    retry: boolean,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const { end } = init;
      if (end?.aborted === true) {
        reject(ended());
        return;
      }
      let controller: Dispatcher.DispatchController | undefined;
      let reader: ResponseReader<T> | undefined;
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        end?.listen(undefined);
        return true;
      };
      end?.listen(() => {
        if (!settle()) return;
        const reason = ended();
        controller?.abort(reason);
        reject(reason);
      });
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(started) {
          controller = started;
          if (settled) started.abort(ended());
        },
        onResponseStart(_controller, status, headers) {
          const type = headers['content-type'];
          reader = open(status, typeof type === 'string' ? type : '');
        },
        onResponseData(current, chunk) {
          if (settled || reader === undefined) return;
          const value = reader.push(chunk);
          if (value === undefined || !settle()) return;
          // Answered (or past a bound) before the body's end: the rest is not read, the socket goes.
          current.abort(new Error('the call has its answer'));
          resolve(value);
        },
        onResponseEnd() {
          if (reader === undefined || !settle()) return;
          resolve(reader.end());
        },
        onResponseError(_controller, error) {
          if (!settle()) return;
          const code = (error as { code?: unknown }).code;
          if (retry && reader === undefined && typeof code === 'string' && STALE_SOCKET.has(code)) {
            resolve(send(url, init, open, false));
            return;
          }
          reject(error);
        },
      };
      const { pool, path } = targetOf(url);
      pool.dispatch(
        {
          path,
          method: 'POST',
          headers: init.headers,
          body: init.body,
        },
        handler,
      );
    });
  return {
    post: (url, init, open) => send(url, init, open, true),
    close() {
      for (const pool of pools.values()) void pool.destroy().catch(() => undefined);
      pools.clear();
      last = undefined;
    },
  };
}

function ended(): Error {
  return new DOMException('The call ended', 'AbortError');
}
