import type { LogFormat, SkillgateConfig } from '@skillgate/config';
import type { ScriptRunner } from '@skillgate/runner';
import type { EventBus, StateEvent } from '@skillgate/state';
import type { UpstreamPool } from '@skillgate/upstreams';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { checkStartup } from './compose/checkStartup.js';
import { composeAccess } from './compose/composeAccess.js';
import { composeHandlers } from './compose/composeHandlers.js';
import { composeServing } from './compose/composeServing.js';
import { type GatewaySettings, gatewaySettings } from './compose/gatewaySettings.js';
import { gatewayShutdown } from './compose/gatewayShutdown.js';
import { lateBinding } from './compose/lateBinding.js';
import { secretValues } from './compose/secretValues.js';
import { runShutdown } from './compose/shutdownPlan.js';
import { startInfrastructure } from './compose/startInfrastructure.js';
import type { CatalogSource } from './core/catalogSource.js';
import type { LiveSessions } from './legacy/liveSessions.js';
import { createGatewayLogger } from './observability/createGatewayLogger.js';
import type { Metrics } from './observability/metrics.js';
import type { InFlightCalls } from './tools/inFlightCalls.js';

/** Options of createGateway. */
export interface GatewayOptions {
  /** Environment to read token variables and script passthrough values from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Logger to use as is (it owns its redaction) instead of the gateway's redacting JSON logger. */
  readonly logger?: FastifyBaseLogger;
  /** Where the gateway's own (redacting) logger writes its lines; default stdout. */
  readonly logDestination?: DestinationStream;
  /**
   * Whether plain hot requests of both eras take the direct path (default true). Off, every request takes
   * the SDK's path: the tests that hold the two byte-equal start one gateway of each.
   */
  readonly directAnswers?: boolean;
  /**
   * 2025-era sessions on the SDK's streamable HTTP transport instead of the native one (default native): the
   * `sdk-transport` test project holds the two equal; not a user setting.
   */
  readonly sessionTransport?: 'native' | 'sdk';
  /** Least time between OAuth key-set refetches on an unknown kid (default 30 s; tests shorten it). */
  readonly oauthKeyRefetchIntervalMs?: number;
}

/** A built, not yet listening gateway. */
export interface Gateway {
  readonly app: FastifyInstance;
  /** The config as each part's settings (compose/gatewaySettings.ts). */
  readonly settings: GatewaySettings;
  readonly log: FastifyBaseLogger;
  /** The catalog served now; reload() rebuilds it as a file change would. */
  readonly catalogs: CatalogSource;
  readonly runner: ScriptRunner;
  /** Notifications across replicas (in-process with the memory backend). */
  readonly events: EventBus<StateEvent>;
  /** Tool calls in progress. */
  readonly inFlight: Pick<InFlightCalls, 'active'>;
  readonly metrics: Metrics;
  readonly sessions: LiveSessions;
  /** Connections to the upstream MCP servers (docs/upstreams.md). */
  readonly upstreams: UpstreamPool;
  /** Resolves once every upstream's first connect attempt ended and a catalog built after it is current. */
  readonly upstreamsSettled: Promise<void>;
  /**
   * Starts the `observability.metrics_port` listener on `server.host` and resolves to its address; resolves
   * to undefined when /metrics is on the main port. close() closes it.
   */
  listenMetrics(): Promise<string | undefined>;
  /** Stops taking requests, lets in-flight calls finish within the grace period, kills scripts, closes streams. */
  close(): Promise<void>;
}

/** `auto` is pretty when the lines go to stdout and stdout is a terminal (a person reads them), else JSON. */
function logFormat(format: LogFormat, options: GatewayOptions): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return options.logDestination === undefined && process.stdout.isTTY === true ? 'pretty' : 'json';
}

/**
 * Assembles a gateway from a validated config, in four steps (compose/): the infrastructure it stands on
 * (state, sources, scripts, upstreams, catalog, metrics), access (tokens, OAuth, disclosure), the handlers
 * both eras serve, and serving (the eras and the HTTP apps); close() runs the shutdown plan
 * (compose/gatewayShutdown.ts).
 */
export async function createGateway(config: SkillgateConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const env = options.env ?? process.env;
  const settings = gatewaySettings(config);
  // Read once: one redactor of these values serves the log, spans, usage records and the operator page, and
  // upstream answers never pass them on.
  const secrets = secretValues(settings, env);
  const log =
    options.logger ??
    createGatewayLogger({
      level: settings.logging.level,
      format: logFormat(settings.logging.format, options),
      destination: options.logDestination,
      redact: secrets.redact,
    });
  // Before anything that holds the process open: a failed start-up exits at once.
  await checkStartup(settings.startup, env, log);
  // The live sessions are built last, but the shared state tells them of sessions that ended from the start.
  const sessions = lateBinding<LiveSessions>('the live sessions');
  const infrastructure = await startInfrastructure({ config, settings, env, log, secrets, sessions });
  const { catalogs, upstreams } = infrastructure;
  const access = composeAccess({
    settings,
    tokens: infrastructure.tokens,
    store: infrastructure.store,
    env,
    log,
    oauthKeyRefetchIntervalMs: options.oauthKeyRefetchIntervalMs,
  });
  const handlers = composeHandlers({
    settings,
    infrastructure,
    disclosure: access.disclosure,
    log,
  });
  const serving = composeServing({
    config,
    settings,
    log,
    infrastructure,
    access,
    handlers,
    sessions,
    directAnswers: options.directAnswers !== false,
    sessionTransport: options.sessionTransport ?? 'native',
  });
  const shutdown = gatewayShutdown({
    infrastructure,
    handlers,
    serving,
    graceMs: settings.server.shutdownGraceMs,
  });
  // A skill edited as soon as createGateway resolves is seen: every folder under the roots is watched by then.
  await serving.following.watching;

  // The first attempts' outcomes reach the catalog through followCatalogChanges too; this reload only lets
  // a caller (a test, a supervisor) wait for them.
  const upstreamsSettled =
    settings.upstreams.length === 0
      ? Promise.resolve()
      : infrastructure.upstreamsStarted
          .then(() => catalogs.reload({ skills: false }))
          .then(
            () => undefined,
            (error: unknown) =>
              log.error({ err: error }, 'catalog rebuild after the upstreams started failed'),
          );
  const { metricsApp } = serving;
  const metricsPort = settings.http.metricsPort;
  return {
    app: serving.app,
    settings,
    log,
    catalogs,
    runner: infrastructure.runner,
    events: infrastructure.state.events,
    inFlight: handlers.inFlight,
    metrics: infrastructure.metrics,
    sessions: serving.sessions,
    upstreams,
    upstreamsSettled,
    async listenMetrics() {
      if (metricsApp === undefined || metricsPort === undefined) return undefined;
      return metricsApp.listen({
        host: settings.server.host,
        port: metricsPort,
        listenTextResolver: (address) => `metrics on ${address}/metrics`,
      });
    },
    async close() {
      if (!serving.startDraining()) return;
      await runShutdown(shutdown, log);
    },
  };
}
