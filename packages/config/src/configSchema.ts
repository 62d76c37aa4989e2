import { z } from 'zod';
import { KNOWN_CLIENT_PROFILES } from './knownClientProfiles.js';
import { authSchema } from './schema/authSchema.js';
import { clientSchema } from './schema/clientsSchema.js';
import { jobsSchema } from './schema/jobsSchema.js';
import { type LOG_FORMATS, type LOG_LEVELS, loggingSchema } from './schema/loggingSchema.js';
import { observabilitySchema } from './schema/observabilitySchema.js';
import { rateLimitSchema } from './schema/rateLimitSchema.js';
import { resourcesSchema } from './schema/resourcesSchema.js';
import { scriptsSchema } from './schema/scriptsSchema.js';
import { serverSchema } from './schema/serverSchema.js';
import { sessionsSchema } from './schema/sessionsSchema.js';
import { skillsSchema } from './schema/skillsSchema.js';
import { stateSchema } from './schema/stateSchema.js';
import { toolsSchema } from './schema/toolsSchema.js';
import { upstreamsSchema } from './schema/upstreamsSchema.js';

/** The whole YAML config (docs/configuration.md): every key optional, unknown keys refused at every level. */
export const configSchema = z
  .strictObject({
    server: serverSchema.prefault({}),
    skills: skillsSchema.prefault({}),
    tools: toolsSchema.prefault({}),
    scripts: scriptsSchema.prefault({}),
    resources: resourcesSchema.prefault({}),
    jobs: jobsSchema.prefault({}),
    sessions: sessionsSchema.prefault({}),
    auth: authSchema.prefault({}),
    rate_limit: rateLimitSchema.prefault({}),
    state: stateSchema.prefault({}),
    clients: z
      .array(clientSchema)
      .default(KNOWN_CLIENT_PROFILES.map((p) => ({ match: { ...p.match }, disclosure: p.disclosure })))
      .describe(
        'Per-client disclosure profiles for 2025-era sessions: { match: { name?, principal? }, disclosure }; first match wins. The default sends clients known not to re-list tools to catalog (docs/clients.md).',
      ),
    upstreams: upstreamsSchema,
    logging: loggingSchema.prefault({}),
    observability: observabilitySchema.prefault({}),
  })
  .superRefine((config, ctx) => {
    // The audience is the resource's URL unless given: without a public URL there is nothing to derive it from.
    const oauth = config.auth.oauth;
    if (oauth !== undefined && oauth.audience === undefined && config.server.public_url === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['server', 'public_url'],
        message: 'is required with auth.oauth unless auth.oauth.audience is given',
      });
    }
  });

// Every nested property and array readonly, matching the deep-frozen runtime value.
type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The validated, frozen config the gateway runs with (snake_case keys, as in the YAML). */
export type SkillgateConfig = DeepReadonly<z.output<typeof configSchema>>;
/** One configured upstream MCP server, validated and frozen. */
export type UpstreamConfig = SkillgateConfig['upstreams'][number];
/** A log level accepted by logging.level and SKILLGATE_LOG_LEVEL. */
export type LogLevel = (typeof LOG_LEVELS)[number];
/** `logging.format`: pretty or JSON lines, or auto (pretty on a terminal). */
export type LogFormat = (typeof LOG_FORMATS)[number];
