import { createUpstreamPool, type UpstreamDefinition, type UpstreamPool } from '@skillgate/upstreams';
import type { FastifyBaseLogger } from 'fastify';
import { SERVER_INFO } from '../mcp/createMcpServer.js';

/** Options of createGatewayUpstreamPool. */
export interface GatewayUpstreamPoolOptions {
  /** The configured upstream servers, in config order. */
  readonly upstreams: readonly UpstreamDefinition[];
  /** Where headers_from_env and env_from values (and a stdio server's PATH, HOME, LANG) come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
  /** The gateway's own secret values (tokens, OAuth credentials): never passed on from an upstream's answer. */
  readonly secrets: readonly string[];
  /** bwrap's path when stdio servers run in the script sandbox; undefined runs them unsandboxed. */
  readonly bwrap: string | undefined;
  /** The listing headers of an upstream with `auth` (docs/credentials.md, "Listing"). */
  readonly connectionHeaders?: (upstream: string) => Promise<Readonly<Record<string, string>> | undefined>;
}

/** The gateway's upstream pool (not started), logging through the gateway's logger (docs/upstreams.md). */
export function createGatewayUpstreamPool(options: GatewayUpstreamPoolOptions): UpstreamPool {
  return createUpstreamPool({
    upstreams: options.upstreams,
    env: options.env,
    cwd: process.cwd(),
    ...(options.bwrap === undefined ? {} : { bwrap: options.bwrap }),
    logger: {
      info: (fields, message) => options.log.info(fields, message),
      warn: (fields, message) => options.log.warn(fields, message),
    },
    clientInfo: SERVER_INFO,
    secrets: options.secrets,
    ...(options.connectionHeaders === undefined ? {} : { connectionHeaders: options.connectionHeaders }),
  });
}

/** What /readyz reports of each upstream. */
export interface UpstreamReadiness {
  readonly id: string;
  readonly state: string;
  readonly tools: number;
  readonly last_error: string | null;
  /** Tools of its listing left out by its listing bounds (docs/limits.md); only when there are any. */
  readonly dropped_tools?: number;
}

/** The upstreams part of /readyz: `[{ id, state, tools, last_error, dropped_tools? }]`. */
export function upstreamReadiness(pool: Pick<UpstreamPool, 'snapshots'>): readonly UpstreamReadiness[] {
  return pool.snapshots().map((s) => ({
    id: s.id,
    state: s.state,
    tools: s.tools.length,
    last_error: s.lastError ?? null,
    ...(s.dropped === undefined ? {} : { dropped_tools: s.dropped.length }),
  }));
}
