import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_SKILL_MD_BYTES,
  DISCLOSURES,
  MAX_DESCRIPTION_CHARS,
  MIN_NAME_LENGTH,
} from '@skillgate/skills';
import { z } from 'zod';
import { isLoopbackHost } from './isLoopbackHost.js';
import { KNOWN_CLIENT_PROFILES } from './knownClientProfiles.js';

// The modes are defined once, by the skills library that builds their tool lists.
const MODERN_DISCLOSURES = ['catalog', 'universal', 'eager'] as const;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// A week bounds every duration: larger values are typos, and they would overflow Node's 32-bit timers.
const seconds = (max = 7 * 86_400) => z.number().positive().max(max);
const count = (min = 1) => z.number().int().min(min);
const glob = z.string().min(1).max(256);
const envName = z.string().regex(ENV_NAME, 'must be an environment variable name');

// Browsers send the serialized origin; anything else (trailing slash, path, upper case) could never match.
const isOrigin = (value: string): boolean => {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
};

// An origin a client can be sent to: http(s), no credentials, path, query or fragment.
const isPublicOrigin = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
};

const serverFields = z.strictObject({
  host: z
    .string()
    .regex(/^[^\s/]+$/, 'must be a host name or IP address, without scheme or path')
    .default('127.0.0.1')
    .describe('Address to bind; a non-loopback address requires auth tokens or auth.allow_anonymous.'),
  port: z.number().int().min(0).max(65535).default(3000).describe('TCP port (0 = any free port).'),
  path: z
    .string()
    .regex(/^\/[^\s?#]*$/, 'must start with / and hold no spaces, ? or #')
    .default('/mcp')
    .describe('Path of the MCP endpoint (POST, GET and DELETE).'),
  allowed_origins: z
    .array(
      z.string().refine(isOrigin, 'must be an exact origin such as https://app.example.com (no path or /)'),
    )
    .default([])
    .describe(
      'Extra browser Origin values allowed (exact match); loopback origins are allowed when bound to loopback.',
    ),
  body_limit_bytes: count(1024).default(1_048_576).describe('Largest accepted HTTP request body.'),
  max_batch_size: count(1)
    .max(1024)
    .default(16)
    .describe('Most messages in a JSON-RPC batch (only 2025-03-26 sessions may send batches).'),
  max_response_bytes: count(65_536)
    .default(16_777_216)
    .describe('Largest single JSON-RPC response of a 2025-era session; a larger result becomes an error.'),
  max_client_string_chars: count(16)
    .max(65_536)
    .default(256)
    .describe(
      'Longest client-supplied string stored or logged (client name and version, tool names, URIs); longer ones are cut. A longer progressToken is refused (-32602).',
    ),
  max_json_depth: count(8)
    .max(10_000)
    .default(64)
    .describe('Deepest nesting of a request body; a deeper one is refused before it is validated.'),
  max_json_keys: count(64)
    .default(1000)
    .describe(
      'Object keys and array elements in one request body, in all; a wider one is refused before it is validated.',
    ),
  max_listen_streams: count()
    .max(1_000_000)
    .default(1024)
    .describe('2026-07-28 subscriptions/listen streams open at once in one process; more get 503.'),
  max_listen_streams_per_principal: count()
    .default(16)
    .describe('subscriptions/listen streams one principal may hold open; more get 429.'),
  shutdown_grace_seconds: z
    .number()
    .min(0)
    .max(600)
    .default(10)
    .describe('On SIGTERM, time given to in-flight tool calls before scripts are killed.'),
  trust_proxy: z.boolean().default(false).describe('Trust X-Forwarded-* headers (behind a reverse proxy).'),
  headers_timeout_seconds: seconds(300)
    .default(10)
    .describe('Time a client has to send all request headers; then 408 and the connection is closed.'),
  request_timeout_seconds: seconds(3600)
    .default(30)
    .describe('Time a client has to send a whole request (headers and body); then 408 and close.'),
  keep_alive_timeout_seconds: seconds(3600)
    .default(72)
    .describe(
      "Idle time a kept-alive connection waits for its next request; keep it above a proxy's idle timeout.",
    ),
  send_timeout_seconds: seconds(3600)
    .default(30)
    .describe('Time output may wait unread (the client stopped reading) before its connection is closed.'),
  max_connections: count()
    .max(1_000_000)
    .default(10_000)
    .describe('Open TCP connections in all; more are closed on accept.'),
  max_connections_per_address: count(0)
    .default(128)
    .describe(
      'Open TCP connections from one client address (0 = no cap); not applied with trust_proxy, where every peer is the proxy.',
    ),
  public_url: z
    .string()
    .refine(isPublicOrigin, 'must be an origin such as https://mcp.example.com (scheme, host, port; no path)')
    .optional()
    .describe(
      'The origin clients reach the gateway at (behind proxies too): names the OAuth resource (auth.oauth) and its metadata URL.',
    ),
  transport: z
    .enum(['native', 'sdk'])
    .default('native')
    .describe(
      "MCP HTTP transport: native (Fastify/node:http, faster) or sdk (the SDK's StreamableHTTPServerTransport).",
    ),
});

// node:http refuses a headers timeout longer than the request timeout.
const serverSchema = serverFields.superRefine((server, ctx) => {
  if (server.headers_timeout_seconds > server.request_timeout_seconds) {
    ctx.addIssue({
      code: 'custom',
      path: ['headers_timeout_seconds'],
      message: `must not exceed server.request_timeout_seconds (${server.request_timeout_seconds})`,
    });
  }
});

const skillsSchema = z.strictObject({
  roots: z
    .array(z.string().min(1))
    .min(1)
    .default(['./examples/skills'])
    .describe('Skill root folders, in order; the first wins on a name clash. Relative to the config file.'),
  validation: z
    .enum(['lenient', 'strict'])
    .default('lenient')
    .describe('strict refuses a skill with any problem; lenient serves it with warnings.'),
  disclosure: z
    .enum(DISCLOSURES)
    .default('namespaced')
    .describe(
      'How 2025-era sessions see skills (namespaced, universal, eager or catalog); client profiles override it.',
    ),
  modern_disclosure: z
    .enum(MODERN_DISCLOSURES)
    .default('catalog')
    .describe(
      'How 2026-07-28 requests see skills: catalog, universal or eager (namespaced needs sessions and is refused).',
    ),
  async_enabled: z
    .boolean()
    .default(false)
    .describe('Offer run_async tools and skill_get_async_status / skill_cancel_async.'),
  prompts: z
    .boolean()
    .default(false)
    .describe(
      'Also serve one MCP prompt per allowed skill (prompts/list, prompts/get: the SKILL.md body), named like its tools.',
    ),
  watch: z.boolean().default(false).describe('Reload skills when files change and notify affected sessions.'),
  watch_debounce_ms: count(10)
    .max(60_000)
    .default(300)
    .describe('Quiet time after a change before reloading.'),
  max_skill_md_bytes: count(1024)
    .max(16_777_216)
    .default(DEFAULT_MAX_SKILL_MD_BYTES)
    .describe('Largest SKILL.md served; a larger one refuses its skill (reported by validate).'),
  max_file_bytes: count(1024)
    .max(2 ** 40)
    .default(DEFAULT_MAX_FILE_BYTES)
    .describe(
      'Largest file of a skill served (read or run); a larger one is skipped before it is read or hashed (reported by validate).',
    ),
  max_description_chars: count(16)
    .max(MAX_DESCRIPTION_CHARS)
    .default(MAX_DESCRIPTION_CHARS)
    .describe(
      'Longest skill description served (the specification allows 1024); a longer one is cut in lenient mode, refused in strict.',
    ),
  max_instructions_chars: count(1024)
    .default(2048)
    .describe(
      'Budget of the whole initialize instructions (hosts keep about 2,048 characters): how to use the gateway, then every skill name, then descriptions as they fit.',
    ),
  allow_missing_roots: z
    .boolean()
    .default(false)
    .describe(
      'Start even if a skill root does not exist or is not a folder (/readyz names it); by default that fails start-up.',
    ),
});

const toolsSchema = z.strictObject({
  max_name_length: z
    .number()
    .int()
    // A shortened name must keep its role, a hash and some of its parts (docs/decisions.md).
    .min(MIN_NAME_LENGTH)
    .max(64)
    .default(48)
    .describe('Longest tool name; a longer name is shortened but keeps skill_, its role and a hash.'),
  list_ttl_ms: z
    .number()
    .int()
    .min(0)
    .max(86_400_000)
    .default(60_000)
    .describe('ttlMs on 2026-07-28 list results: how long a client may cache them.'),
});

const limitsSchema = z.strictObject({
  memory_mb: count(0)
    .max(1_048_576)
    .default(1024)
    .describe('Heap (data segment) of each script process in MiB (RLIMIT_DATA); 0 = no limit.'),
  processes: count(0)
    .max(1_000_000)
    .default(128)
    .describe('Processes and threads of one run (a cgroup pids limit where available); 0 = no limit.'),
  file_bytes: count(0)
    .default(67_108_864)
    .describe(
      'Largest file a script may write (RLIMIT_FSIZE), and the size of its private /tmp; 0 = no limit.',
    ),
  cpu_seconds: count(0)
    .max(7 * 86_400)
    .default(300)
    .describe('CPU time of each script process in seconds (RLIMIT_CPU); 0 = no limit.'),
});

const scriptsSchema = z
  .strictObject({
    default_timeout: seconds().default(30).describe('Script timeout in seconds when the caller gives none.'),
    max_timeout: seconds().default(300).describe('Largest timeout a caller may ask for, in seconds.'),
    max_output_bytes: count(1024)
      .default(1_048_576)
      .describe('Bytes kept of each of stdout and stderr (the tail).'),
    default_tail: count(0).default(200).describe('Lines of output returned when the caller gives no tail.'),
    max_concurrent: count().default(4).describe('Scripts running at once across the gateway.'),
    max_concurrent_per_principal: count().default(2).describe('Scripts running at once for one principal.'),
    max_queue: count(0).default(32).describe('Runs that may wait for a slot; 0 = fail fast when busy.'),
    queue_timeout_seconds: seconds(3600)
      .default(30)
      .describe('Longest wait for a slot before the run is refused.'),
    max_stdin_bytes: count(0).default(1_048_576).describe('Largest stdin a caller may send.'),
    max_args: count(0).default(256).describe('Most entries in args.'),
    max_arg_bytes: count(0).default(65_536).describe('Most bytes in all args together.'),
    kill_grace_ms: count(0)
      .max(60_000)
      .default(2000)
      .describe('Time between SIGTERM and SIGKILL of a script process group.'),
    env_passthrough: z
      .array(envName)
      .default(['PATH', 'HOME', 'LANG', 'LC_ALL', 'TZ'])
      .describe('Environment variables a script may see (plus SKILL_NAME and SKILL_DIR).'),
    interpreters: z
      .record(
        z.string().regex(/^\.[A-Za-z0-9]+$/, 'must be a file extension such as .py'),
        z.array(z.string().min(1)).min(1),
      )
      // A factory, so no two parses share (and freeze) the same nested arrays.
      .default(() => ({
        '.py': ['python3'],
        '.sh': ['bash'],
        '.bash': ['bash'],
        '.js': ['node'],
        '.mjs': ['node'],
        '.cjs': ['node'],
      }))
      .describe(
        'Interpreter argv by file extension; replaces the default map. Executable files with a shebang run directly.',
      ),
    sandbox: z
      .enum(['auto', 'bwrap', 'off'])
      .default('auto')
      .describe(
        'Run scripts in bubblewrap: auto (when it works here, else off with a warning), bwrap (refuse to start without it) or off.',
      ),
    network: z
      .boolean()
      .default(false)
      .describe(
        "Let sandboxed scripts use the network (the host's, loopback and the gateway's port included).",
      ),
    limits: limitsSchema.prefault({}),
  })
  // Checked on the section, not the root, so it is reported together with problems in other sections.
  .superRefine((scripts, ctx) => {
    if (scripts.default_timeout > scripts.max_timeout) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_timeout'],
        message: `must not exceed scripts.max_timeout (${scripts.max_timeout})`,
      });
    }
  });

const resourcesSchema = z.strictObject({
  max_text_bytes: count(1024).default(262_144).describe('Read tools cut longer text files, with a note.'),
  max_binary_bytes: count(1024).default(5_242_880).describe('Read tools refuse larger binary files.'),
});

const jobsSchema = z.strictObject({
  ttl_seconds: seconds().default(3600).describe('How long a finished async job is kept.'),
  max_per_session: count().default(16).describe('Running async jobs per session (or principal).'),
});

const sessionsSchema = z.strictObject({
  ttl_seconds: seconds().default(3600).describe('Idle time after which a session expires.'),
  max_sessions: count().default(10_000).describe('Sessions open at once.'),
  max_per_principal: count()
    .default(1000)
    .describe(
      "Sessions open at once for one principal; at the cap a new session closes that principal's longest-idle one.",
    ),
  relist_wait_ms: count(0)
    .max(5000)
    .default(1000)
    .describe(
      'Longest a get_info result that unlocked tools waits for the session to re-list, so the host has them on its next turn; 0 = never wait.',
    ),
  relist_grace_ms: count(0)
    .max(1000)
    .default(100)
    .describe(
      'After that re-list is answered, how much longer the get_info result waits while the host applies the new list.',
    ),
  scope: z
    .enum(['session', 'principal'])
    .default('session')
    .describe('Keep unlocks and jobs per session, or per principal across its sessions.'),
});

const tokenSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ -'),
    token_env: envName.optional(),
    token_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
      .optional(),
    skills: z.array(glob).default(['*']),
    // Only a static token can open the operator page: an OAuth principal never does (docs/operator.md).
    admin: z.boolean().default(false),
  })
  .refine((t) => (t.token_env === undefined) !== (t.token_sha256 === undefined), {
    message: 'give exactly one of token_env and token_sha256',
  });

/** Token names that label callers without a token (compared case-insensitively). */
const RESERVED_TOKEN_NAMES = new Set(['anonymous', 'anon']);

// RFC 6749 §3.3: a scope token is printable ASCII without space, " or \.
const scopeToken = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'must be an OAuth scope (printable ASCII, no space, " or \\)');

// Where the gateway fetches keys and metadata from: https, or http only on a loopback address (a test
// or a sidecar IdP); tokens verified against keys fetched in the clear over a network could be forged.
const isSecureUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '' || url.hash !== '') return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
};
const secureUrl = z
  .string()
  .refine(isSecureUrl, 'must be an https:// URL (http:// only on a loopback address), without credentials');

const grantSkills = z.array(glob).min(1).describe('Globs of the skills this grant gives.');
const oauthGrantSchema = z.union([
  z.strictObject({ scope: scopeToken, skills: grantSkills }),
  z.strictObject({
    claim: z.strictObject({
      name: z.string().min(1).max(256),
      value: z.union([z.string().max(1024), z.number(), z.boolean()]),
    }),
    skills: grantSkills,
  }),
]);

const oauthSchema = z.strictObject({
  issuer: secureUrl.describe(
    "The authorization server's issuer identifier; its metadata's issuer and every token's iss must equal it exactly.",
  ),
  audience: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe(
      'The token audience (aud) this gateway accepts; default server.public_url + server.path (the RFC 8707 resource).',
    ),
  jwks_uri: secureUrl
    .optional()
    .describe(
      "Where the issuer's signing keys are; default from its RFC 8414 metadata, else /.well-known/openid-configuration.",
    ),
  principal_claim: z
    .string()
    .min(1)
    .max(256)
    .default('sub')
    .describe('The token claim that names the principal (logs, client profiles, rate limits, job owners).'),
  scopes_supported: z
    .array(scopeToken)
    .max(256)
    .default([])
    .describe(
      'Scopes advertised in the Protected Resource Metadata (default: required_scopes and grant scopes).',
    ),
  required_scopes: z
    .array(scopeToken)
    .max(64)
    .default([])
    .describe(
      'Scopes every token must carry; a valid token without one of them gets 403 insufficient_scope.',
    ),
  grants: z
    .array(oauthGrantSchema)
    .max(1024)
    .default([])
    .describe(
      'Skills per scope or claim: { scope, skills } | { claim: { name, value }, skills }; a token gets the union of its matching grants, none matched, none.',
    ),
  introspection: z
    .strictObject({
      endpoint: secureUrl.describe("The issuer's RFC 7662 introspection endpoint."),
      client_id_env: envName.describe(
        'Environment variable holding the client id the gateway introspects as.',
      ),
      client_secret_env: envName.describe('Environment variable holding that client secret.'),
    })
    .optional()
    .describe(
      'RFC 7662 introspection for opaque (non-JWT) tokens: { endpoint, client_id_env, client_secret_env }.',
    ),
});

const authSchema = z
  .strictObject({
    tokens: z
      .array(tokenSchema)
      .default([])
      .describe(
        'Bearer tokens: { name, token_env | token_sha256, skills: [globs], admin }; `admin: true` opens the operator page at GET /; `anonymous` and `anon` are reserved names.',
      ),
    allow_anonymous: z
      .boolean()
      .default(false)
      .describe('Allow requests without a token (required to bind a non-loopback host without tokens).'),
    anonymous_skills: z.array(glob).default(['*']).describe('Skills visible to anonymous requests (globs).'),
    oauth: oauthSchema
      .optional()
      .describe(
        'OAuth 2.1 resource server (docs/auth.md): accept access tokens of one issuer beside auth.tokens.',
      ),
  })
  .superRefine((auth, ctx) => {
    // Names label principals in logs, limits and client profiles, so two tokens may not share one, and none may
    // take the name of the principal without a token (`skillgate skills --token anonymous` names that one).
    const seen = new Set<string>();
    auth.tokens.forEach((token, i) => {
      if (RESERVED_TOKEN_NAMES.has(token.name.toLowerCase())) {
        ctx.addIssue({
          code: 'custom',
          path: ['tokens', i, 'name'],
          message: `"${token.name}" is reserved for requests without a token; pick another name`,
        });
      }
      if (seen.has(token.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tokens', i, 'name'],
          message: `duplicate token name "${token.name}"`,
        });
      }
      seen.add(token.name);
    });
  });

const rateLimitSchema = z.strictObject({
  requests_per_second: z
    .number()
    .min(0)
    .default(50)
    .describe(
      'Per-principal sustained request rate on the MCP endpoint: a token bucket refilled at this rate, shared by every replica; a client at this rate is never refused. 0 = off.',
    ),
  burst: count()
    .default(200)
    .describe('Requests a principal may send at once beyond the rate: the size of its token bucket.'),
});

const stateSchema = z.strictObject({
  backend: z
    .enum(['memory', 'redis'])
    .default('memory')
    .describe(
      'Where sessions, unlocks, async jobs and rate limits live: memory (one process) or redis (shared by replicas).',
    ),
  redis_url_env: envName
    .default('SKILLGATE_REDIS_URL')
    .describe(
      'Environment variable holding the Redis URL (redis://, rediss:// or unix:/path) when backend is redis; anything else, or unset, stops the start.',
    ),
  key_prefix: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{0,64}$/, 'must be at most 64 of A-Z a-z 0-9 . _ : -')
    .default('skillgate:')
    .describe('Prefix of every Redis key and channel, so several gateways can share one Redis.'),
});

const clientSchema = z.strictObject({
  match: z
    .strictObject({ name: glob.optional(), principal: glob.optional() })
    .refine((m) => m.name !== undefined || m.principal !== undefined, {
      message: 'give name and/or principal',
    }),
  disclosure: z.enum(DISCLOSURES),
});

// Header names (RFC 9110 tokens) the transport sets itself cannot come from config.
const RESERVED_HEADERS = new Set([
  'accept',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, 'must be an HTTP header name')
  .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'is set by the MCP transport itself');

const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
};

const upstreamSchema = z
  .strictObject({
    id: z
      .string()
      .regex(
        /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/,
        'must be 1-32 of a-z 0-9 -, not starting or ending with -',
      )
      .describe('Names the upstream (and its auto skill); a-z 0-9 -, unique.'),
    url: z
      .string()
      .refine(isHttpUrl, 'must be an http:// or https:// URL without credentials (use headers_from_env)')
      .optional()
      .describe('Streamable HTTP endpoint of the upstream (either protocol era).'),
    command: z
      .array(z.string().min(1))
      .min(1)
      .max(256)
      .optional()
      .describe("argv of a stdio upstream, started in the gateway's working directory."),
    headers_from_env: z
      .record(headerName, envName)
      .optional()
      .describe(
        'HTTP headers sent to the upstream: header name -> environment variable holding its whole value.',
      ),
    env_from: z
      .record(envName, envName)
      .optional()
      .describe(
        'Environment of a stdio upstream beyond PATH, HOME, LANG: child variable -> gateway variable.',
      ),
    description: z
      .string()
      .min(1)
      .max(MAX_DESCRIPTION_CHARS)
      .optional()
      .describe("Description of the auto skill (else from the upstream's instructions or name)."),
    skill: z
      .enum(['auto', 'none'])
      .default('auto')
      .describe('auto: the upstream is a skill named id; none: only folder skills bind its tools.'),
    tools: z.array(glob).min(1).default(['*']).describe('Globs of the upstream tools exposed at all.'),
    timeout_seconds: seconds(86_400).default(60).describe('Longest wait for one call, queueing included.'),
    max_concurrent: count().max(1024).default(8).describe('Calls in flight to this upstream; more wait.'),
    max_result_bytes: count(1024)
      .max(268_435_456)
      .default(1_048_576)
      .describe('Largest call result (JSON bytes); a larger one is RESULT_TOO_LARGE.'),
  })
  .superRefine((upstream, ctx) => {
    if ((upstream.url === undefined) === (upstream.command === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give exactly one of url and command' });
    }
    if (upstream.url === undefined && upstream.headers_from_env !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['headers_from_env'], message: 'only applies to url upstreams' });
    }
    if (upstream.command === undefined && upstream.env_from !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['env_from'], message: 'only applies to command upstreams' });
    }
  });

const upstreamsSchema = z
  .array(upstreamSchema)
  .max(256)
  .default([])
  .describe(
    'Upstream MCP servers (docs/upstreams.md): { id, url | command, headers_from_env?, env_from?, description?, skill: auto, tools: ["*"], timeout_seconds: 60, max_concurrent: 8, max_result_bytes: 1048576 }.',
  )
  .superRefine((upstreams, ctx) => {
    const seen = new Set<string>();
    upstreams.forEach((upstream, i) => {
      if (seen.has(upstream.id)) {
        ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate upstream id "${upstream.id}"` });
      }
      seen.add(upstream.id);
    });
  });

const loggingSchema = z.strictObject({
  level: z
    .enum(LOG_LEVELS)
    .default('info')
    .describe('Log level; one line per HTTP request is written at debug, tool-call audit lines at info.'),
  format: z
    .enum(LOG_FORMATS)
    .default('auto')
    .describe(
      'Log format on stdout: pretty (one readable line per record), json (one JSON object per line), or auto: pretty when stdout is a terminal, else json.',
    ),
  log_arguments: z
    .boolean()
    .default(false)
    .describe('Put tool argument values in audit log lines (never those of upstream calls).'),
});

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
/** One configured bearer token (exactly one of token_env and token_sha256 is set). */
export type TokenConfig = SkillgateConfig['auth']['tokens'][number];
/** The auth.oauth section: one issuer whose access tokens the gateway accepts. */
export type OAuthConfig = NonNullable<SkillgateConfig['auth']['oauth']>;
/** One client profile: which clients it matches and the disclosure they get. */
export type ClientProfile = SkillgateConfig['clients'][number];
