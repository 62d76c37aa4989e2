import type { SkillgateConfig, UpstreamConfig } from '@skillgate/config';
import type { RunnerOptions } from '@skillgate/runner';
import type { UpstreamSnapshot } from '@skillgate/skills';
import type { UpstreamDefinition } from '@skillgate/upstreams';
import type { CatalogSettings } from '../core/catalogSource.js';
import type { DisclosurePickerOptions } from '../disclosure/clientProfiles.js';
import type { HttpSettings } from '../http/buildApp.js';
import type { LegacySessionSettings } from '../legacy/liveSessions.js';
import type { ModernSettings } from '../modern/modernEndpoint.js';
import type { ReadLimits } from '../tools/toolResults.js';

/**
 * The config as the typed settings of each part. The composition root reads the config here, once; every
 * other module receives only the plain fields it uses (docs/decisions.md, "Typed options, no runtime bag").
 */
export interface GatewaySettings {
  readonly catalog: CatalogSettings;
  readonly http: HttpSettings;
  readonly sessions: LegacySessionSettings;
  readonly modern: ModernSettings;
  readonly disclosurePicker: DisclosurePickerOptions;
  /** The script runner's limits, minus what start-up decides (sandbox, environment). */
  readonly scripts: Omit<RunnerOptions, 'sandbox' | 'envDeny' | 'sourceEnv'>;
  readonly upstreams: readonly UpstreamDefinition[];
  /** Bounds of read tools and `skill://` reads (`resources.*`). */
  readonly readLimits: ReadLimits;
  /** Longest client string kept (`server.max_client_string_chars`). */
  readonly maxClientStringChars: number;
  /** Whether audit lines carry tool arguments (`logging.log_arguments`). */
  readonly logArguments: boolean;
  /** The 2026-07-28 cache lifetime of lists (`tools.list_ttl_ms`). */
  readonly listTtlMs: number;
  /** Whether each skill is also an MCP prompt (`skills.prompts`). */
  readonly prompts: boolean;
}

/** The `upstreams` config section as the pool's definitions. */
const upstreamDefinition = (u: UpstreamConfig): UpstreamDefinition => ({
  id: u.id,
  ...(u.url === undefined ? {} : { url: u.url }),
  ...(u.command === undefined ? {} : { command: u.command }),
  ...(u.headers_from_env === undefined ? {} : { headersFromEnv: u.headers_from_env }),
  ...(u.env_from === undefined ? {} : { envFrom: u.env_from }),
  ...(u.sandbox === undefined ? {} : { sandbox: u.sandbox }),
  ...(u.description === undefined ? {} : { description: u.description }),
  skill: u.skill,
  tools: u.tools,
  timeoutSeconds: u.timeout_seconds,
  maxConcurrent: u.max_concurrent,
  maxConcurrentPerPrincipal: u.max_concurrent_per_principal,
  maxResultBytes: u.max_result_bytes,
  listing: {
    maxTools: u.max_tools,
    maxSchemaBytes: u.max_tool_schema_bytes,
    maxDescriptionBytes: u.max_tool_description_bytes,
  },
});

/** What the config alone says of an upstream, before any connection: enough to name its auto skill. */
const configuredUpstream = (u: UpstreamConfig): UpstreamSnapshot => ({
  id: u.id,
  skill: u.skill,
  ...(u.description === undefined ? {} : { description: u.description }),
  state: 'connecting',
  tools: [],
});

/** How skills are loaded and built into a catalog (also what the CLI's commands build). */
export function catalogSettings(config: SkillgateConfig): CatalogSettings {
  return {
    // The runner's interpreters decide which files under scripts/ get run tools (docs/decisions.md).
    load: {
      roots: config.skills.roots,
      validation: config.skills.validation,
      interpreterExtensions: Object.keys(config.scripts.interpreters),
      maxSkillMdBytes: config.skills.max_skill_md_bytes,
      maxFileBytes: config.skills.max_file_bytes,
      maxDescriptionChars: config.skills.max_description_chars,
    },
    build: {
      maxNameLength: config.tools.max_name_length,
      asyncEnabled: config.skills.async_enabled,
      maxTimeoutSeconds: config.scripts.max_timeout,
      pinned: config.skills.pinned,
      argumentLimits: {
        maxArgs: config.scripts.max_args,
        maxArgBytes: config.scripts.max_arg_bytes,
        maxStdinBytes: config.scripts.max_stdin_bytes,
      },
    },
    configuredUpstreams: config.upstreams.map(configuredUpstream),
  };
}

/** The `upstreams` section as the upstream pool's definitions (also what the CLI connects to). */
export const upstreamDefinitions = (config: SkillgateConfig): readonly UpstreamDefinition[] =>
  config.upstreams.map(upstreamDefinition);

/** Reads a validated config into the settings of every part of the gateway. */
export function gatewaySettings(config: SkillgateConfig): GatewaySettings {
  const { server, scripts, skills, sessions } = config;
  return {
    catalog: catalogSettings(config),
    http: {
      path: server.path,
      bodyLimitBytes: server.body_limit_bytes,
      trustProxy: server.trust_proxy,
      deadlines: {
        headersTimeoutMs: server.headers_timeout_seconds * 1000,
        requestTimeoutMs: server.request_timeout_seconds * 1000,
        keepAliveTimeoutMs: server.keep_alive_timeout_seconds * 1000,
      },
      maxConnections: server.max_connections,
      maxConnectionsPerAddress: server.max_connections_per_address,
      sendTimeoutMs: server.send_timeout_seconds * 1000,
      maxListenStreams: server.max_listen_streams,
      maxListenStreamsPerPrincipal: server.max_listen_streams_per_principal,
      maxJsonDepth: server.max_json_depth,
      maxJsonKeys: server.max_json_keys,
      prompts: skills.prompts,
      // With a metrics port of its own, /metrics is not served on the main port (docs/observability.md).
      metricsPort: config.observability.metrics_port ?? undefined,
    },
    sessions: {
      transport: server.transport,
      maxBatch: server.max_batch_size,
      maxResponseBytes: server.max_response_bytes,
      relistWaitMs: sessions.relist_wait_ms,
      relistGraceMs: sessions.relist_grace_ms,
      path: server.path,
      maxClientStringChars: server.max_client_string_chars,
      scope: sessions.scope,
    },
    modern: {
      disclosure: skills.modern_disclosure,
      listTtlMs: config.tools.list_ttl_ms,
      bodyLimitBytes: server.body_limit_bytes,
      maxListenStreams: server.max_listen_streams,
    },
    disclosurePicker: { profiles: config.clients, fallback: skills.disclosure },
    scripts: {
      interpreters: scripts.interpreters,
      envPassthrough: scripts.env_passthrough,
      defaultTimeoutSeconds: scripts.default_timeout,
      maxTimeoutSeconds: scripts.max_timeout,
      maxOutputBytes: scripts.max_output_bytes,
      defaultTailLines: scripts.default_tail,
      maxConcurrent: scripts.max_concurrent,
      maxConcurrentPerPrincipal: scripts.max_concurrent_per_principal,
      maxQueue: scripts.max_queue,
      queueTimeoutMs: scripts.queue_timeout_seconds * 1000,
      maxStdinBytes: scripts.max_stdin_bytes,
      killGraceMs: scripts.kill_grace_ms,
      network: scripts.network,
      limits: {
        memoryMb: scripts.limits.memory_mb,
        processes: scripts.limits.processes,
        fileBytes: scripts.limits.file_bytes,
        cpuSeconds: scripts.limits.cpu_seconds,
      },
    },
    upstreams: upstreamDefinitions(config),
    readLimits: {
      maxTextBytes: config.resources.max_text_bytes,
      maxBinaryBytes: config.resources.max_binary_bytes,
    },
    maxClientStringChars: server.max_client_string_chars,
    logArguments: config.logging.log_arguments,
    listTtlMs: config.tools.list_ttl_ms,
    prompts: skills.prompts,
  };
}
