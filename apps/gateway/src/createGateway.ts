import { ConfigError, type LogFormat, resolveAuthTokens, type SkillgateConfig } from '@skillgate/config';
import { createScriptRunner, probeSandbox, RunnerError } from '@skillgate/runner';
import { createJobRegistry, createStateBackend, redisTarget, StateError } from '@skillgate/state';
import type { UpstreamPool } from '@skillgate/upstreams';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { createAccessPolicy } from './auth/accessPolicy.js';
import { createBearerAuth } from './auth/bearerAuth.js';
import { createOAuthResource, oauthSecretEnvNames } from './auth/createOAuthResource.js';
import { createDisclosurePicker } from './disclosure/clientProfiles.js';
import { createDisclosurePolicy } from './disclosure/disclosurePolicy.js';
import { buildApp } from './http/buildApp.js';
import { createOriginPolicy } from './http/requestGuards.js';
import { createLiveSessions, type LiveSessions } from './legacy/liveSessions.js';
import { withUnlockSnapshots } from './legacy/withUnlockSnapshots.js';
import { createModernEndpoint } from './modern/modernEndpoint.js';
import { createGatewayLogger } from './observability/createGatewayLogger.js';
import { countJobEnd, createMetrics } from './observability/metrics.js';
import { createCatalogSource } from './reload/catalogSource.js';
import { missingSkillRoots } from './reload/missingSkillRoots.js';
import { notifyCatalogChange } from './reload/notifyCatalogChange.js';
import { watchSkillRoots } from './reload/skillWatcher.js';
import type { GatewayRuntime } from './runtime.js';
import { createInFlightCalls } from './tools/inFlightCalls.js';
import { createUpstreamPoolFromConfig, upstreamReadiness } from './upstreams/createUpstreamPoolFromConfig.js';

const STATE_STARTUP_WAIT_MS = 5000;
// Upstream changes (a reconnect, a list_changed burst) within this window make one catalog rebuild.
const UPSTREAM_REBUILD_DEBOUNCE_MS = 100;

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
  readonly runtime: GatewayRuntime;
  readonly sessions: LiveSessions;
  /** Connections to the upstream MCP servers (docs/upstreams.md). */
  readonly upstreams: UpstreamPool;
  /** Stops taking requests, lets in-flight calls finish within the grace period, kills scripts, closes streams. */
  close(): Promise<void>;
}

/** `auto` is pretty when the lines go to stdout and stdout is a terminal (a person reads them), else JSON. */
function logFormat(format: LogFormat, options: GatewayOptions): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return options.logDestination === undefined && process.stdout.isTTY === true ? 'pretty' : 'json';
}

/** A missing or non-Redis state URL as a config error naming the variable (docs/scale-out.md). */
function checkRedisUrl(name: string, env: Readonly<Record<string, string | undefined>>): void {
  try {
    redisTarget(env[name]);
  } catch (error) {
    if (!(error instanceof StateError)) throw error;
    const message = `${name}: ${error.message}`;
    throw new ConfigError('CONFIG_INVALID', message, {
      issues: [{ path: 'state.redis_url_env', message }],
      cause: error,
    });
  }
}

/** Assembles a gateway from a validated config: loads the catalog, builds stores, runner and app. */
export async function createGateway(config: SkillgateConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const env = options.env ?? process.env;
  // Checked before anything starts (scripts, watchers): a bad URL is a config error, never a retry loop.
  if (config.state.backend === 'redis') checkRedisUrl(config.state.redis_url_env, env);
  const tokens = resolveAuthTokens(config, env);
  const secretEnvNames = [
    ...config.auth.tokens.flatMap((t) => (t.token_env === undefined ? [] : [t.token_env])),
    ...oauthSecretEnvNames(config),
  ];
  const log =
    options.logger ??
    createGatewayLogger({
      level: config.logging.level,
      format: logFormat(config.logging.format, options),
      destination: options.logDestination,
      secrets: secretEnvNames.flatMap((name) => env[name] ?? []),
    });
  // Before anything that holds the process open: a failed start-up exits at once.
  const missing = await missingSkillRoots(config.skills.roots);
  if (missing.length > 0 && !config.skills.allow_missing_roots) {
    throw new ConfigError(
      'CONFIG_INVALID',
      `skill root not found: ${missing.map((m) => m.root).join(', ')}`,
      {
        issues: missing.map((m) => ({
          path: `skills.roots[${m.index}]`,
          message: `${m.root} ${m.reason} (relative roots resolve against the config file's folder; skills.allow_missing_roots: true starts without it)`,
        })),
      },
    );
  }
  for (const m of missing) log.warn({ root: m.root }, `skill root ${m.reason}: serving no skills from it`);
  const sandbox = await probeSandbox({
    mode: config.scripts.sandbox,
    network: config.scripts.network,
    searchPath: env.PATH ?? '',
  }).catch((error: unknown) => {
    // bwrap was asked for and does not work: a start-up error that names the key, like any config error.
    if (!(error instanceof RunnerError)) throw error;
    throw new ConfigError('CONFIG_INVALID', error.message, {
      issues: [{ path: 'scripts.sandbox', message: `${error.message} (docs/sandbox.md)` }],
      cause: error,
    });
  });
  const runner = createScriptRunner({
    interpreters: config.scripts.interpreters,
    envPassthrough: config.scripts.env_passthrough,
    envDeny: secretEnvNames,
    sourceEnv: env,
    defaultTimeoutSeconds: config.scripts.default_timeout,
    maxTimeoutSeconds: config.scripts.max_timeout,
    maxOutputBytes: config.scripts.max_output_bytes,
    defaultTailLines: config.scripts.default_tail,
    maxConcurrent: config.scripts.max_concurrent,
    maxConcurrentPerPrincipal: config.scripts.max_concurrent_per_principal,
    maxQueue: config.scripts.max_queue,
    queueTimeoutMs: config.scripts.queue_timeout_seconds * 1000,
    maxStdinBytes: config.scripts.max_stdin_bytes,
    killGraceMs: config.scripts.kill_grace_ms,
    sandbox,
    network: config.scripts.network,
    limits: {
      memoryMb: config.scripts.limits.memory_mb,
      processes: config.scripts.limits.processes,
      fileBytes: config.scripts.limits.file_bytes,
      cpuSeconds: config.scripts.limits.cpu_seconds,
    },
  });
  const isolation = await runner.ready();
  if (isolation.sandbox === 'off' && isolation.requested === 'auto') {
    log.warn(
      { sandbox: isolation },
      `SCRIPTS RUN WITHOUT A SANDBOX: bubblewrap does not work on this host (${isolation.reason}). Scripts can read ` +
        "what the gateway's user can read and use the network. Fix it (docs/sandbox.md) or set scripts.sandbox: off.",
    );
  } else {
    log.info(
      { sandbox: isolation },
      `scripts run ${isolation.sandbox === 'bwrap' ? 'in bubblewrap' : 'unsandboxed'}`,
    );
  }
  // Upstreams connect (and list their tools) before the first catalog is built; a dead one does not stop
  // the start, it is listed as down and retried (docs/upstreams.md).
  const upstreams = createUpstreamPoolFromConfig(config, { env, log });
  await upstreams.start();
  const catalogs = await createCatalogSource(config, {
    upstreams: () => upstreams.snapshots(),
    onBuilding: (skills) => log.info({ skills }, 'catalog reload: skills read, building the catalog'),
  });
  for (const problem of catalogs.current.problems) {
    log[problem.severity === 'error' ? 'error' : 'warn']({ problem }, `skill problem: ${problem.reason}`);
  }

  let sessions: LiveSessions | undefined;
  // state.backend picks where sessions live: this process, or Redis shared by replicas (docs/scale-out.md).
  const state = createStateBackend({
    backend: config.state.backend,
    redisUrl: env[config.state.redis_url_env],
    keyPrefix: config.state.key_prefix,
    sessions: {
      ttlMs: config.sessions.ttl_seconds * 1000,
      maxSessions: config.sessions.max_sessions,
      maxPerPrincipal: config.sessions.max_per_principal,
      onExpire: (session) => {
        log.info({ session: session.id }, 'session expired');
        void sessions?.close(session.id, 'expired');
      },
      // A DELETE on any replica ends the session's copies on every replica (their GET streams end).
      onDeleted: (session) => {
        void sessions?.close(session.id, 'deleted');
      },
    },
    jobs: { ttlMs: config.jobs.ttl_seconds * 1000, maxRunningPerOwner: config.jobs.max_per_session },
    rateLimit: { requestsPerSecond: config.rate_limit.requests_per_second, burst: config.rate_limit.burst },
    onError: (error) => log.warn({ err: error }, 'shared state error'),
  });
  // A replica that listened before its Redis connection was up would answer its first requests 503: give Redis
  // a few seconds at start-up; after that, start anyway (not ready until it is reachable).
  if (!(await state.waitUntilReady(STATE_STARTUP_WAIT_MS))) {
    log.warn('shared state (Redis) is not reachable yet: requests get 503 and /readyz is false until it is');
  }
  // With Redis, a request reads its unlocks with its session (one round trip); memory needs no snapshot.
  const store =
    state.backend === 'redis'
      ? withUnlockSnapshots(state.sessions, config.sessions.max_sessions)
      : state.sessions;
  const jobs = createJobRegistry({
    runner,
    store: state.jobs,
    defaultTailLines: config.scripts.default_tail,
    onError: (error) => log.warn({ err: error }, 'async job record not written'),
    onEnd: (end) => countJobEnd(runtime.metrics, end),
  });
  const policy = createAccessPolicy({
    tokens,
    allowAnonymous: config.auth.allow_anonymous,
    anonymousSkills: config.auth.anonymous_skills,
    onAuthorizationIgnored: () =>
      log.warn('a request sent an Authorization header, but no auth tokens are configured: it is ignored'),
  });
  const oauth = createOAuthResource({
    config,
    env,
    keyRefetchIntervalMs: options.oauthKeyRefetchIntervalMs,
    onFetchFailed: (error) => log.warn({ err: error }, 'OAuth issuer metadata or keys could not be fetched'),
  });
  // The keys are fetched now, so the first token does not wait; a failure is logged and retried on use.
  if (oauth !== undefined) void oauth.verifier.warmUp();
  const bearerAuth = createBearerAuth({
    policy,
    oauth,
    allowAnonymous: config.auth.allow_anonymous,
    anonymousSkills: config.auth.anonymous_skills,
  });
  const runtime: GatewayRuntime = {
    config,
    catalogs,
    store,
    events: state.events,
    runner,
    jobs,
    policy,
    disclosure: createDisclosurePolicy({
      access: policy,
      store,
      maxInstructionsChars: config.skills.max_instructions_chars,
    }),
    metrics: createMetrics({
      localJobsRunning: () => jobs.localRunning,
      upstreams: () => upstreams.snapshots(),
      sharedFigures: async () => {
        const [sessionsOpen, jobsRunning] = await Promise.all([store.count(), jobs.countRunning()]);
        return { sessionsOpen, jobsRunning };
      },
    }),
    log,
    inFlight: createInFlightCalls(),
    upstreams,
  };
  const live = createLiveSessions(runtime, {
    pickDisclosure: createDisclosurePicker(config),
    events: state.events,
    directAnswers: options.directAnswers ?? true,
  });
  sessions = live;
  const modern = createModernEndpoint(runtime);

  catalogs.onChange((previous, next) => {
    runtime.metrics.inc('skillgate_catalog_reloads_total', { outcome: 'ok' });
    for (const problem of next.problems)
      log.warn({ problem }, `skill problem after reload: ${problem.reason}`);
    notifyCatalogChange(runtime, live, modern, previous, next).then(
      (notified) => log.info({ skills: next.skills.size, notified }, 'catalog reloaded'),
      (error: unknown) => log.error({ err: error }, 'reload notification failed'),
    );
  });
  // An upstream's new tools or state rebuild the catalog like a skill reload, with the same notifications.
  let rebuildTimer: NodeJS.Timeout | undefined;
  const stopFollowingUpstreams = upstreams.onChange(() => {
    if (rebuildTimer !== undefined) return;
    rebuildTimer = setTimeout(() => {
      rebuildTimer = undefined;
      catalogs.reload().catch((error: unknown) => {
        runtime.metrics.inc('skillgate_catalog_reloads_total', { outcome: 'error' });
        log.error(
          { err: error },
          'catalog rebuild after an upstream change failed; keeping the previous catalog',
        );
      });
    }, UPSTREAM_REBUILD_DEBOUNCE_MS);
  });
  const stopWatching = config.skills.watch
    ? watchSkillRoots({
        roots: config.skills.roots,
        debounceMs: config.skills.watch_debounce_ms,
        onChange: () => {
          catalogs.reload().catch((error: unknown) => {
            runtime.metrics.inc('skillgate_catalog_reloads_total', { outcome: 'error' });
            log.error({ err: error }, 'catalog reload failed; keeping the previous catalog');
          });
        },
        onError: (error) => log.warn({ err: error }, 'skill watcher error'),
      })
    : () => {};

  let draining = false;
  const app = buildApp({
    runtime,
    sessions: live,
    modern,
    originPolicy: createOriginPolicy({
      boundHost: config.server.host,
      allowedOrigins: config.server.allowed_origins,
    }),
    rateLimiter: state.rateLimiter,
    bearerAuth,
    isReady: () => !draining && state.isHealthy(),
    isDraining: () => draining,
    direct: options.directAnswers ?? true,
    upstreams: () => upstreamReadiness(upstreams),
  });

  return {
    app,
    runtime,
    sessions: live,
    upstreams,
    async close() {
      if (draining) return;
      draining = true;
      stopWatching();
      stopFollowingUpstreams();
      clearTimeout(rebuildTimer);
      // In-flight tool calls get the grace period; after it, their scripts are killed, which ends the calls.
      await runtime.inFlight.drained(Date.now() + config.server.shutdown_grace_seconds * 1000);
      await jobs.close();
      await runner.close();
      // Calls still waiting on an upstream end with UPSTREAM_UNAVAILABLE; every stdio server is stopped.
      await upstreams.close();
      // Killed scripts end their calls with a result; give those results a moment to reach the clients.
      await runtime.inFlight.drained(Date.now() + 1000);
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
      await state.close();
    },
  };
}
