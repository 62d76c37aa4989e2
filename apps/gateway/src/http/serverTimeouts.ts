import type { ServerOptions } from 'node:http';
import type { SkillgateConfig } from '@skillgate/config';

/** The Fastify options that bound how long a client may take (a subset of Fastify's server options). */
export interface ServerTimeouts {
  readonly keepAliveTimeout: number;
  readonly requestTimeout: number;
  /** Fastify applies keepAliveTimeout and requestTimeout itself; the rest goes to http.createServer. */
  readonly http: ServerOptions;
}

/**
 * Fastify/node:http options for the header, whole-request and keep-alive timeouts of `server.*`. No
 * socket inactivity timeout is set: an SSE stream or a long script run may be silent for minutes.
 */
export function serverTimeouts(server: SkillgateConfig['server']): ServerTimeouts {
  const headersTimeout = server.headers_timeout_seconds * 1000;
  return {
    keepAliveTimeout: server.keep_alive_timeout_seconds * 1000,
    requestTimeout: server.request_timeout_seconds * 1000,
    http: {
      headersTimeout,
      // node:http checks the header and request deadlines on this interval, 30 s by default, which would
      // let a slow client hold its socket up to 30 s past a 10 s headers timeout.
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeout / 4))),
    },
  };
}
