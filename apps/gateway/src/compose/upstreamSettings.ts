import type { SkillgateConfig, UpstreamConfig } from '@skillgate/config';
import type { UpstreamDefinition } from '@skillgate/upstreams';
import { perPrincipalSlots } from './perPrincipalSlots.js';

/** The most an upstream's per-principal share is by default (the share before it depended on max_concurrent). */
const DEFAULT_UPSTREAM_SHARE_CAP = 4;

/** The `upstreams` config section as the pool's definitions. */
const upstreamDefinition = (u: UpstreamConfig): UpstreamDefinition => ({
  id: u.id,
  ...(u.url === undefined ? {} : { url: u.url }),
  ...(u.command === undefined ? {} : { command: u.command }),
  ...(u.headers_from_env === undefined ? {} : { headersFromEnv: u.headers_from_env }),
  ...(u.env_from === undefined ? {} : { envFrom: u.env_from }),
  ...(u.sandbox === undefined ? {} : { sandbox: u.sandbox }),
  ...(u.description === undefined ? {} : { description: u.description }),
  // Calls carry each caller's credential (or the gateway's own token): docs/credentials.md.
  ...(u.auth === undefined || u.url === undefined ? {} : { perCaller: true }),
  skill: u.skill,
  tools: u.tools,
  timeoutSeconds: u.timeout_seconds,
  maxConcurrent: u.max_concurrent,
  maxConcurrentPerPrincipal: perPrincipalSlots(
    u.max_concurrent_per_principal,
    u.max_concurrent,
    DEFAULT_UPSTREAM_SHARE_CAP,
  ),
  maxResultBytes: u.max_result_bytes,
  listing: {
    maxTools: u.max_tools,
    maxSchemaBytes: u.max_tool_schema_bytes,
    maxDescriptionBytes: u.max_tool_description_bytes,
  },
});

/** The `upstreams` section as the upstream pool's definitions (also what the CLI connects to). */
export const upstreamSettings = (config: SkillgateConfig): readonly UpstreamDefinition[] =>
  config.upstreams.map(upstreamDefinition);
