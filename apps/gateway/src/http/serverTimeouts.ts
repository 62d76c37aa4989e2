import type { ServerOptions } from 'node:http';

/** The Fastify options that bound how long a client may take (a subset of Fastify's server options). */
export interface ServerTimeouts {
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  /** Fastify applies keepAliveTimeout and requestTimeout itself; the rest goes to http.createServer. */
  readonly http: ServerOptions;
}

/** How long a client may take to send its headers, its whole request, and between keep-alive requests. */
export interface ClientDeadlines {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
}

/**
 * Fastify/node:http options for the header, whole-request and keep-alive deadlines. No socket inactivity
 * timeout is set: an SSE stream or a long script run may be silent for minutes.
 */
export function serverTimeouts(deadlines: ClientDeadlines): ServerTimeouts {
  const headersTimeout = deadlines.headersTimeoutMs;
  return {
    keepAliveTimeout: deadlines.keepAliveTimeoutMs,
    requestTimeout: deadlines.requestTimeoutMs,
    http: {
      headersTimeout,
      // node:http checks the header and request deadlines on this interval, 30 s by default, which would
      // let a slow client hold its socket up to 30 s past a 10 s headers timeout.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  };
}
