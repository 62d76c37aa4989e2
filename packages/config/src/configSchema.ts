import { z } from 'zod';
import { KNOWN_CLIENT_PROFILES } from './knownClientProfiles.js';
import { authSchema } from './schema/authSchema.js';
import { clientSchema } from './schema/clientsSchema.js';
import { credentialsSchema } from './schema/credentialsSchema.js';
import { jobsSchema } from './schema/jobsSchema.js';
import { type LOG_FORMATS, type LOG_LEVELS, loggingSchema } from './schema/loggingSchema.js';
import { observabilitySchema } from './schema/observabilitySchema.js';
import { rateLimitSchema } from './schema/rateLimitSchema.js';
import { resourcesSchema } from './schema/resourcesSchema.js';
import { scriptsSchema } from './schema/scriptsSchema.js';
import { serverSchema } from './schema/serverSchema.js';
import { sessionsSchema } from './schema/sessionsSchema.js';
import { skillsSchema } from './schema/skillsSchema.js';
import { sourcesSchema } from './schema/sourcesSchema.js';
import { stateSchema } from './schema/stateSchema.js';
import { toolsSchema } from './schema/toolsSchema.js';
import { upstreamsSchema } from './schema/upstreamsSchema.js';

/** The whole YAML config (docs/configuration.md): every key optional, unknown keys refused at every level. */
export const configSchema = z
  .strictObject({
    server: serverSchema.prefault({}),
    skills: skillsSchema.prefault({}),
    sources: sourcesSchema.prefault({}),
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
    credentials: credentialsSchema.prefault({}),
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
    checkCredentials(config, ctx);
  });

type ParsedConfig = z.output<typeof configSchema>;

// What the credentials section must agree with elsewhere: every provider named exists, per-principal
// records can be sealed, the store can be reached, connect links have an origin.
function checkCredentials(config: ParsedConfig, ctx: z.RefinementCtx): void {
  const { credentials } = config;
  const providers = new Map(credentials.providers.map((p) => [p.id, p]));
  const missing = (id: string) => `no provider "${id}" in credentials.providers`;
  config.upstreams.forEach((upstream, i) => {
    const id = upstream.auth?.provider;
    if (id !== undefined && !providers.has(id)) {
      ctx.addIssue({ code: 'custom', path: ['upstreams', i, 'auth', 'provider'], message: missing(id) });
    }
  });
  config.scripts.credentials.forEach((credential, i) => {
    if (!providers.has(credential.provider)) {
      ctx.addIssue({
        code: 'custom',
        path: ['scripts', 'credentials', i, 'provider'],
        message: missing(credential.provider),
      });
    }
  });
  if (credentials.providers.length === 0) return;
  if (credentials.keys.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['credentials', 'keys'],
      message:
        'at least one key is required with credentials.providers: every connection and secret is sealed with credentials.keys (docs/credentials.md, "Keys")',
    });
  }
  if (credentials.store === 'redis' && config.state.backend !== 'redis') {
    ctx.addIssue({
      code: 'custom',
      path: ['credentials', 'store'],
      message: 'redis needs state.backend: redis (the store uses the Redis of state.redis_url_env)',
    });
  }
  if (credentials.connect.public_url === undefined && config.server.public_url === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['credentials', 'connect', 'public_url'],
      message:
        'is required with credentials.providers unless server.public_url is given (the base of /connect links)',
    });
  }
  if (config.auth.oauth !== undefined && credentials.connect.login === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['credentials', 'connect', 'login'],
      message:
        'is required with auth.oauth and credentials.providers: an OAuth principal signs in at auth.oauth.issuer before it connects',
    });
  }
}

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
