import type { SkillgateConfig, UpstreamConfig } from '@skillgate/config';
import { createUpstreamPool, type UpstreamDefinition, type UpstreamPool } from '@skillgate/upstreams';
import type { FastifyBaseLogger } from 'fastify';
import { SERVER_INFO } from '../legacy/sessionServer.js';

/** Options of createUpstreamPoolFromConfig. */
export interface UpstreamPoolFromConfigOptions {
  /** Where headers_from_env and env_from values (and a stdio server's PATH, HOME, LANG) come from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Pick<FastifyBaseLogger, 'info' | 'warn'>;
}

/** The `upstreams` config section as the pool's definitions. */
export function upstreamDefinitions(config: SkillgateConfig): readonly UpstreamDefinition[] {
  return config.upstreams.map(
    (u: UpstreamConfig): UpstreamDefinition => ({
      id: u.id,
      ...(u.url === undefined ? {} : { url: u.url }),
      ...(u.command === undefined ? {} : { command: u.command }),
      ...(u.headers_from_env === undefined ? {} : { headersFromEnv: u.headers_from_env }),
      ...(u.env_from === undefined ? {} : { envFrom: u.env_from }),
      ...(u.description === undefined ? {} : { description: u.description }),
      skill: u.skill,
      tools: u.tools,
      timeoutSeconds: u.timeout_seconds,
      maxConcurrent: u.max_concurrent,
      maxResultBytes: u.max_result_bytes,
    }),
  );
}

/** The gateway's upstream pool (not started), logging through the gateway's logger (docs/upstreams.md). */
export function createUpstreamPoolFromConfig(
  config: SkillgateConfig,
  options: UpstreamPoolFromConfigOptions,
): UpstreamPool {
  return createUpstreamPool({
    upstreams: upstreamDefinitions(config),
    env: options.env,
    cwd: process.cwd(),
    logger: {
      info: (fields, message) => options.log.info(fields, message),
      warn: (fields, message) => options.log.warn(fields, message),
    },
    clientInfo: SERVER_INFO,
  });
}

/** What /readyz reports of each upstream. */
export interface UpstreamReadiness {
  readonly id: string;
  readonly state: string;
  readonly tools: number;
  readonly last_error: string | null;
}

/** The upstreams part of /readyz: `[{ id, state, tools, last_error }]`. */
export function upstreamReadiness(pool: Pick<UpstreamPool, 'snapshots'>): readonly UpstreamReadiness[] {
  return pool.snapshots().map((s) => ({
    id: s.id,
    state: s.state,
    tools: s.tools.length,
    last_error: s.lastError ?? null,
  }));
}
