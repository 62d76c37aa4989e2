import type { LogFormat, LogLevel, SkillgateConfig } from '@skillgate/config';
import type { CredentialsSettings } from '@skillgate/credentials';
import type { RunnerOptions, SandboxMode } from '@skillgate/runner';
import type { UpstreamDefinition } from '@skillgate/upstreams';
import type { CatalogSettings } from '../core/catalogSource.js';
import type { DisclosurePickerOptions } from '../disclosure/clientProfiles.js';
import type { HttpSettings } from '../http/buildApp.js';
import type { LegacySessionSettings } from '../legacy/liveSessions.js';
import type { ModernSettings } from '../modern/modernEndpoint.js';
import type { ReadLimits } from '../tools/toolResults.js';
import { type AuthSettings, authSettings } from './authSettings.js';
import { catalogSettings } from './catalogSettings.js';
import type { StartupSettings } from './checkStartup.js';
import { credentialSecretEnvNames, credentialsSettings } from './credentialsSettings.js';
import { type OperatorSettings, operatorSettings } from './operatorSettings.js';
import { perPrincipalSlots } from './perPrincipalSlots.js';
import { type SourcesSettings, sourcesSettings } from './sourcesSettings.js';
import type { TracingSettings } from './startTracing.js';
import { type StateSettings, stateSettings } from './stateSettings.js';
import { upstreamSettings } from './upstreamSettings.js';

/**
 * The config as the typed settings of each part. The config is read here (and in the section functions
 * beside it, compose/*Settings.ts), once; the composition root and every other module receive only the
 * settings they use (docs/architecture.md, "Options and settings").
 */
export interface GatewaySettings {
  /** Where the gateway listens, and how long a shutdown waits for calls in flight. */
  readonly server: {
    readonly host: string;
    readonly port: number;
    readonly shutdownGraceMs: number;
  };
  readonly logging: { readonly level: LogLevel; readonly format: LogFormat };
  /**
   * Every variable whose value is a secret: tokens, OAuth client credentials, collector headers, upstream
   * headers and env values, source tokens. Kept from scripts; the one redactor (compose/secretValues.ts) cuts
   * their values from logs, spans and what upstreams answer.
   */
  readonly secretEnvNames: readonly string[];
  readonly startup: StartupSettings;
  /** `observability.tracing`, or undefined without an endpoint (no tracing work at all). */
  readonly tracing: TracingSettings | undefined;
  readonly state: StateSettings;
  readonly sources: SourcesSettings;
  readonly auth: AuthSettings;
  /** What every request is admitted by besides its token: the bound host, allowed origins, body budget. */
  readonly guard: {
    readonly boundHost: string;
    readonly allowedOrigins: readonly string[];
    readonly bodyBytesPerRequest: number;
  };
  /** The disclosure rule's bounds (`skills.max_instructions_chars`, `tools.max_listed`). */
  readonly disclosure: { readonly maxInstructionsChars: number; readonly maxListed: number };
  /**
   * When the search index is built ahead: a catalog of more than `maxListed` skills, or search configured
   * for either era.
   */
  readonly searchAhead: { readonly maxListed: number; readonly configured: boolean };
  /** Whether usage records keep search queries (`observability.keep_queries`). */
  readonly keepQueries: boolean;
  /** The skill roots watched for changes (`skills.watch`), or undefined. */
  readonly watch: { readonly roots: readonly string[]; readonly debounceMs: number } | undefined;
  /** The operator page, or undefined when the MCP endpoint is served at `/`. */
  readonly operator: OperatorSettings | undefined;
  /** `scripts.sandbox`: what isolation scripts and stdio upstreams ask for. */
  readonly sandbox: SandboxMode;
  readonly catalog: CatalogSettings;
  readonly http: HttpSettings;
  readonly sessions: LegacySessionSettings;
  readonly modern: ModernSettings;
  readonly disclosurePicker: DisclosurePickerOptions;
  /** The script runner's limits, minus what start-up decides (sandbox, environment). */
  readonly scripts: Omit<RunnerOptions, 'sandbox' | 'envDeny' | 'sourceEnv'>;
  readonly upstreams: readonly UpstreamDefinition[];
  /** Per-principal and the gateway's own credentials (docs/credentials.md), or undefined when none is configured. */
  readonly credentials: CredentialsSettings | undefined;
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

/** The most one principal's share of the script slots is by default (the fixed default it had before). */
const DEFAULT_SCRIPT_SHARE_CAP = 2;

/** Reads a validated config into the settings of every part of the gateway. */
export function gatewaySettings(config: SkillgateConfig): GatewaySettings {
  const { server, scripts, skills, sessions, observability } = config;
  const auth = authSettings(config);
  const tracing = observability.tracing;
  const credentials = credentialsSettings(config);
  const sources = sourcesSettings(config);
  const upstreams = upstreamSettings(config);
  return {
    server: { host: server.host, port: server.port, shutdownGraceMs: server.shutdown_grace_seconds * 1000 },
    logging: { level: config.logging.level, format: config.logging.format },
    secretEnvNames: [
      ...new Set([
        ...auth.secretEnvNames,
        ...Object.values(tracing.headers_from_env),
        ...credentialSecretEnvNames(credentials),
        ...upstreams.flatMap((u) => [
          ...Object.values(u.headersFromEnv ?? {}),
          ...Object.values(u.envFrom ?? {}),
        ]),
        ...sources.tokenEnvNames,
      ]),
    ],
    startup: {
      redisUrlEnv: config.state.backend === 'redis' ? config.state.redis_url_env : undefined,
      skillRoots: skills.roots,
      allowMissingRoots: skills.allow_missing_roots,
    },
    tracing:
      tracing.endpoint === undefined
        ? undefined
        : {
            endpoint: tracing.endpoint,
            protocol: tracing.protocol,
            headersFromEnv: tracing.headers_from_env,
            sampleRatio: tracing.sample_ratio,
            serviceName: tracing.service_name,
          },
    state: stateSettings(config),
    sources,
    auth,
    guard: {
      boundHost: server.host,
      allowedOrigins: server.allowed_origins,
      bodyBytesPerRequest: config.rate_limit.bytes_per_request,
    },
    disclosure: { maxInstructionsChars: skills.max_instructions_chars, maxListed: config.tools.max_listed },
    searchAhead: {
      maxListed: config.tools.max_listed,
      configured: skills.disclosure === 'search' || skills.modern_disclosure === 'search',
    },
    keepQueries: observability.keep_queries,
    watch: skills.watch ? { roots: skills.roots, debounceMs: skills.watch_debounce_ms } : undefined,
    operator: operatorSettings(config),
    sandbox: scripts.sandbox,
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
      metricsPort: observability.metrics_port ?? undefined,
    },
    sessions: {
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
      defaultTimeoutSeconds: scripts.default_timeout_seconds,
      maxTimeoutSeconds: scripts.max_timeout_seconds,
      maxOutputBytes: scripts.max_output_bytes,
      defaultTailLines: scripts.default_tail,
      maxConcurrent: scripts.max_concurrent,
      maxConcurrentPerPrincipal: perPrincipalSlots(
        scripts.max_concurrent_per_principal,
        scripts.max_concurrent,
        DEFAULT_SCRIPT_SHARE_CAP,
      ),
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
    upstreams,
    credentials,
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
