import { type LogFormat, resolveAuthTokens, type SkillgateConfig } from '@skillgate/config';
import type { ScriptRunner } from '@skillgate/runner';
import type { Catalog } from '@skillgate/skills';
import { createJobRegistry, type EventBus, type StateEvent } from '@skillgate/state';
import type { UpstreamPool } from '@skillgate/upstreams';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { createAccessPolicy } from './auth/accessPolicy.js';
import { createBearerAuth } from './auth/bearerAuth.js';
import { createFailedAttempts } from './auth/failedAttempts.js';
import { createOriginPolicy } from './auth/originPolicy.js';
import { checkStartup } from './compose/checkStartup.js';
import { createOAuthResource } from './compose/createOAuthResource.js';
import { followCatalogChanges } from './compose/followCatalogChanges.js';
import { type GatewaySettings, gatewaySettings } from './compose/gatewaySettings.js';
import { operatorPageOptions } from './compose/operatorPageOptions.js';
import { adminAccessOf } from './compose/operatorSettings.js';
import { sourceTokens } from './compose/sourcesOptions.js';
import { startScripts } from './compose/startScripts.js';
import { startSharedState } from './compose/startSharedState.js';
import { startSources } from './compose/startSources.js';
import { startTracing } from './compose/startTracing.js';
import { type CatalogSource, createCatalogSource } from './core/catalogSource.js';
import { createDisclosurePicker } from './disclosure/clientProfiles.js';
import { createDisclosurePolicy } from './disclosure/disclosurePolicy.js';
import { buildApp } from './http/buildApp.js';
import { buildMetricsApp } from './http/metricsApp.js';
import { createLiveSessions, type LiveSessions } from './legacy/liveSessions.js';
import { withUnlockSnapshots } from './legacy/withUnlockSnapshots.js';
import { createModernEndpoint } from './modern/modernEndpoint.js';
import { createGatewayLogger } from './observability/createGatewayLogger.js';
import { countJobEnd, createMetrics, type Metrics } from './observability/metrics.js';
import { createRecentCalls } from './observability/recentCalls.js';
import { createUsageCounter } from './observability/usageCounter.js';
import { createOperatorAccess } from './operator/operatorAccess.js';
import { createSkillsService } from './skillsExtension/skillsService.js';
import { createInFlightCalls, type InFlightCalls } from './tools/inFlightCalls.js';
import { createSkillSearch } from './tools/skillSearch.js';
import { createToolHandlers } from './tools/toolHandlers.js';
import { createGatewayUpstreamPool, upstreamReadiness } from './upstreams/createGatewayUpstreamPool.js';

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

/** Assembles a gateway from a validated config: loads the catalog, builds stores, runner and app. */
export async function createGateway(config: SkillgateConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const env = options.env ?? process.env;
  const settings = gatewaySettings(config);
  const { secretEnvNames } = settings;
  const log =
    options.logger ??
    createGatewayLogger({
      level: settings.logging.level,
      format: logFormat(settings.logging.format, options),
      destination: options.logDestination,
      secrets: [...secretEnvNames.flatMap((name) => env[name] ?? []), ...sourceTokens(settings.sources, env)],
    });
  // Before anything that holds the process open: a failed start-up exits at once.
  await checkStartup(settings.startup, env, log);
  // Off (no endpoint): undefined, and no request does any tracing work (docs/observability.md).
  const tracing = startTracing(settings.tracing, env);
  let sessions: LiveSessions | undefined;
  // state.backend picks where sessions live: this process, or Redis shared by replicas (docs/scale-out.md).
  const state = await startSharedState({
    ...(tracing === undefined ? {} : { tracing }),
    settings: settings.state,
    env,
    log,
    onSessionEnded: (id, why) => void sessions?.close(id, why),
  });
  // Git and archive sources are fetched and verified before the first catalog: one that cannot be served
  // fails the start, naming it (docs/sources.md). Without a lock file, replicas serve the commit the first
  // of them resolved (the state backend's pins).
  const sources = await startSources({ settings: settings.sources, env, log, shared: state.pins }).catch(
    async (error: unknown) => {
      await state.close();
      throw error;
    },
  );
  // The config package's own check of every token variable (it names the unset ones): the config is passed
  // whole, no field of it is read here.
  const tokens = resolveAuthTokens(config, env);
  const { runner, sandbox } = await startScripts({
    scripts: settings.scripts,
    sandbox: settings.sandbox,
    secretEnvNames,
    env,
    log,
  });
  // Upstreams connect in the background: the gateway listens at once, serving each upstream as `connecting`
  // until its first attempt ends (one that never answers cannot hold the start); its tools arrive with a
  // catalog rebuild, and a dead one is listed as down and retried (docs/upstreams.md).
  const upstreams = createGatewayUpstreamPool({
    upstreams: settings.upstreams,
    env,
    log,
    secrets: secretEnvNames.flatMap((name) => env[name] ?? []),
    bwrap: sandbox.mode === 'bwrap' ? sandbox.bwrapPath : undefined,
  });
  const upstreamsStarted = upstreams.start();
  const catalogs = await createCatalogSource(settings.catalog, {
    upstreams: () => upstreams.snapshots(),
    onBuilding: (skills) => log.info({ skills }, 'catalog reload: skills read, building the catalog'),
    sourceRoots: () => sources.roots(),
  });
  sources.follow(() => catalogs.reload());
  for (const problem of catalogs.current.problems) {
    log[problem.severity === 'error' ? 'error' : 'warn']({ problem }, `skill problem: ${problem.reason}`);
  }

  // With Redis, a request reads its unlocks with its session (one round trip); memory needs no snapshot.
  const store =
    state.backend === 'redis'
      ? withUnlockSnapshots(state.sessions, settings.state.sessions.maxSessions)
      : state.sessions;
  const jobs = createJobRegistry({
    runner,
    store: state.jobs,
    defaultTailLines: settings.scripts.defaultTailLines,
    onError: (error) => log.warn({ err: error }, 'async job record not written'),
    onEnd: (end) => countJobEnd(metrics, end),
  });
  const metrics = createMetrics({
    localJobsRunning: () => jobs.localRunning,
    upstreams: () => upstreams.snapshots(),
    sharedFigures: async () => {
      const [sessionsOpen, jobsRunning] = await Promise.all([store.count(), jobs.countRunning()]);
      return { sessionsOpen, jobsRunning };
    },
  });
  const policy = createAccessPolicy({
    tokens,
    allowAnonymous: settings.auth.allowAnonymous,
    anonymousSkills: settings.auth.anonymousSkills,
    onAuthorizationIgnored: () =>
      log.warn('a request sent an Authorization header, but no auth tokens are configured: it is ignored'),
  });
  const oauth = createOAuthResource({
    oauth: settings.auth.oauth,
    env,
    keyRefetchIntervalMs: options.oauthKeyRefetchIntervalMs,
    onFetchFailed: (error) => log.warn({ err: error }, 'OAuth issuer metadata or keys could not be fetched'),
  });
  // The keys are fetched now, so the first token does not wait; a failure is logged and retried on use.
  if (oauth !== undefined) void oauth.verifier.warmUp();
  const bearerAuth = createBearerAuth({
    policy,
    oauth,
    allowAnonymous: settings.auth.allowAnonymous,
    anonymousSkills: settings.auth.anonymousSkills,
    failedAttempts: createFailedAttempts({ perMinute: settings.auth.failedAttemptsPerMinute }),
  });
  const disclosure = createDisclosurePolicy({
    access: policy,
    store,
    ...settings.disclosure,
    // Once per (catalog, mode, allow-list): a reload logs it again if it still applies.
    onSwitchToSearch: (event) =>
      log.info(
        {
          principal: event.principal,
          configured: event.configured,
          listed: event.listed,
          max_listed: event.maxListed,
        },
        `principal "${event.principal}" would list ${event.listed} tools at first (tools.max_listed ${event.maxListed}): it gets search instead of ${event.configured}`,
      ),
  });
  const search = createSkillSearch({
    onBuild: (trigger) => metrics.inc('skillgate_search_index_builds_total', { trigger }),
  });
  // Where principals search (a catalog past tools.max_listed, or search configured), the every-skill index is
  // built after each catalog build, in slices off the request path, so the first search does not wait for it.
  const warmSearch = (catalog: Catalog): void => {
    const searching = catalog.skills.size > settings.searchAhead.maxListed || settings.searchAhead.configured;
    if (!searching) return;
    search.warm(catalog).catch((error: unknown) => log.warn({ err: error }, 'search index build failed'));
  };
  warmSearch(catalogs.current);
  catalogs.onChange((_previous, next) => warmSearch(next));
  const inFlight = createInFlightCalls();
  // The last tool calls of this replica, for the operator page (docs/operator.md).
  const recentCalls = createRecentCalls();
  // Per skill and principal, counted in memory and flushed to the state backend each second (docs/observability.md).
  const usage = createUsageCounter({
    store: state.usage,
    metrics,
    keepQueries: settings.keepQueries,
    secrets: secretEnvNames.flatMap((name) => env[name] ?? []),
    maxQueryChars: settings.maxClientStringChars,
    onError: (error) => log.warn({ err: error }, 'skill usage could not be written to the state backend'),
  });
  const tools = createToolHandlers({
    catalogs,
    disclosure,
    unlocks: store,
    runner,
    jobs,
    upstreams,
    metrics,
    search,
    readLimits: settings.readLimits,
    inFlight,
    events: state.events,
    log,
    maxClientStringChars: settings.maxClientStringChars,
    logArguments: settings.logArguments,
    recentCalls,
    usage,
    ...(tracing === undefined ? {} : { tracing }),
  });
  const skills = createSkillsService({
    catalogs,
    disclosure,
    log,
    readLimits: settings.readLimits,
    maxClientStringChars: settings.maxClientStringChars,
    listTtlMs: settings.listTtlMs,
    prompts: settings.prompts,
  });
  const servers = { catalogs, disclosure, tools, skills };
  const live = createLiveSessions({
    servers,
    store,
    jobs,
    metrics,
    log,
    pickDisclosure: createDisclosurePicker(settings.disclosurePicker),
    events: state.events,
    settings: settings.sessions,
    ...(options.directAnswers === false ? {} : { direct: { skills } }),
  });
  sessions = live;
  const modern = createModernEndpoint({ servers, disclosure, log, settings: settings.modern });
  const stopFollowing = followCatalogChanges({
    catalogs,
    upstreams,
    watch: settings.watch,
    notify: { sessions: live, modern, store, disclosure, log, prompts: settings.prompts },
    metrics,
    log,
  });

  const originPolicy = createOriginPolicy(settings.guard);
  let draining = false;
  const app = buildApp({
    settings: settings.http,
    log,
    metrics,
    catalogs,
    runner,
    sessions: live,
    modern,
    guard: {
      isDraining: () => draining,
      originPolicy,
      bearerAuth,
      rateLimiter: state.rateLimiter,
      bodyBytesPerRequest: settings.guard.bodyBytesPerRequest,
    },
    bearerAuth,
    isReady: () => !draining && state.isHealthy(),
    direct: options.directAnswers ?? true,
    ...(tracing === undefined ? {} : { tracing }),
    upstreams: () => upstreamReadiness(upstreams),
    sources: () => sources.readiness(),
    // /readyz names upstreams, sources and missing roots only to whoever may open the operator page.
    readinessAccess: createOperatorAccess(adminAccessOf(settings.auth)),
    operator: operatorPageOptions({
      settings: settings.operator,
      config,
      sources: {
        catalogs,
        disclosure,
        upstreams: () => upstreams.snapshots(),
        sessions: store,
        jobs,
        recentCalls,
        usage,
        stateBackend: state.backend,
      },
      secretEnvNames,
      env,
    }),
  });

  const metricsPort = settings.http.metricsPort;
  const metricsApp =
    metricsPort === undefined
      ? undefined
      : buildMetricsApp({ log, metrics, catalogs, runner, sessions: live, originPolicy });

  // The first attempts' outcomes reach the catalog through followCatalogChanges too; this reload only lets
  // a caller (a test, a supervisor) wait for them.
  const upstreamsSettled =
    settings.upstreams.length === 0
      ? Promise.resolve()
      : upstreamsStarted
          .then(() => catalogs.reload({ skills: false }))
          .then(
            () => undefined,
            (error: unknown) =>
              log.error({ err: error }, 'catalog rebuild after the upstreams started failed'),
          );
  return {
    app,
    settings,
    log,
    catalogs,
    runner,
    events: state.events,
    inFlight,
    metrics,
    sessions: live,
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
      if (draining) return;
      draining = true;
      stopFollowing();
      sources.stop();
      // In-flight tool calls get the grace period; after it, their scripts are killed, which ends the calls.
      await inFlight.drained(Date.now() + settings.server.shutdownGraceMs);
      await jobs.close();
      await runner.close();
      // Calls still waiting on an upstream end with UPSTREAM_UNAVAILABLE; every stdio server is stopped.
      await upstreams.close();
      // The last second's counts, before the store closes.
      await usage.close();
      // Killed scripts end their calls with a result; give those results a moment to reach the clients.
      await inFlight.drained(Date.now() + 1000);
      // The SDK writes a handler's result a few microtasks after the handler returns: let it, then close.
      await new Promise((resolve) => setImmediate(resolve));
      // The stored sessions stay: a restarted process (or another replica) takes them over.
      await live.closeAll();
      await modern.close();
      // A client that opened a connection and never sent on it (an SDK reconnecting its stream) would hold
      // close() open until the server's header timeout: responses get two seconds, then what is left is cut.
      const cut = setTimeout(() => app.server.closeAllConnections(), 2000);
      await app.close();
      clearTimeout(cut);
      await metricsApp?.close();
      await state.close();
      // The last spans (this shutdown's requests among them) go out before the process ends.
      await tracing?.shutdown();
    },
  };
}
