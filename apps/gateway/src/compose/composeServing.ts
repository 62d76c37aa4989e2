import type { SkillgateConfig } from '@skillgate/config';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { credentialOwnerOf } from '../auth/accessPolicy.js';
import { createDisclosurePicker } from '../disclosure/clientProfiles.js';
import { buildApp } from '../http/buildApp.js';
import { buildMetricsApp } from '../http/metricsApp.js';
import { createLiveSessions, type LiveSessions } from '../legacy/liveSessions.js';
import { createModernEndpoint, type ModernEndpoint } from '../modern/modernEndpoint.js';
import { upstreamReadiness } from '../upstreams/createGatewayUpstreamPool.js';
import type { Access } from './composeAccess.js';
import type { Handlers } from './composeHandlers.js';
import { type CatalogFollower, followCatalogChanges } from './followCatalogChanges.js';
import type { GatewaySettings } from './gatewaySettings.js';
import type { LateBinding } from './lateBinding.js';
import { operatorPageOptions } from './operatorPageOptions.js';
import type { Infrastructure } from './startInfrastructure.js';

/** Options of composeServing. */
export interface ServingOptions {
  /** Shown redacted on the operator page; no field of it is read here. */
  readonly config: SkillgateConfig;
  readonly settings: GatewaySettings;
  readonly log: FastifyBaseLogger;
  readonly infrastructure: Infrastructure;
  readonly access: Access;
  readonly handlers: Handlers;
  /** Bound here to the live sessions the shared state's "session ended" closes. */
  readonly sessions: LateBinding<LiveSessions>;
  /** Whether plain hot requests of both eras take the direct path. */
  readonly directAnswers: boolean;
  /** The 2025-era sessions' transport (GatewayOptions.sessionTransport). */
  readonly sessionTransport: 'native' | 'sdk';
}

/** The two eras' endpoints and the apps that route to them. */
export interface Serving {
  readonly app: FastifyInstance;
  /** The `observability.metrics_port` listener, or undefined when /metrics is on the main port. */
  readonly metricsApp: FastifyInstance | undefined;
  /** The 2025-era sessions of this process. */
  readonly sessions: LiveSessions;
  readonly modern: ModernEndpoint;
  /** Follows skill roots and upstreams for catalog changes. */
  readonly following: CatalogFollower;
  /** Whether a shutdown began: requests are then refused and /readyz says not ready. */
  isDraining(): boolean;
  /** Begins the shutdown's draining; true only for the first call. */
  startDraining(): boolean;
}

/**
 * Builds both eras over the handlers (the 2025 live sessions, the 2026-07-28 endpoint), tells them of each
 * new catalog, and builds the HTTP apps that route to them. Nothing listens yet.
 */
export function composeServing(options: ServingOptions): Serving {
  const { settings, log, infrastructure, access, handlers } = options;
  const { catalogs, metrics, runner, state, store, jobs, upstreams, sources, tracing, credentials } =
    infrastructure;
  const { disclosure } = access;
  const servers = { catalogs, disclosure, tools: handlers.tools, skills: handlers.skills };
  const live = options.sessions.bind(
    createLiveSessions({
      servers,
      store,
      jobs,
      metrics,
      log,
      pickDisclosure: createDisclosurePicker(settings.disclosurePicker),
      events: state.events,
      settings: settings.sessions,
      transport: options.sessionTransport,
      ...(options.directAnswers ? { direct: { skills: handlers.skills } } : {}),
    }),
  );
  const modern = createModernEndpoint({ servers, disclosure, log, settings: settings.modern });
  const following = followCatalogChanges({
    catalogs,
    upstreams,
    watch: settings.watch,
    notify: { sessions: live, modern, store, disclosure, log, prompts: settings.prompts },
    metrics,
    log,
  });

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
      originPolicy: access.originPolicy,
      bearerAuth: access.bearerAuth,
      rateLimiter: state.rateLimiter,
      bodyBytesPerRequest: settings.guard.bodyBytesPerRequest,
    },
    bearerAuth: access.bearerAuth,
    isReady: () => !draining && state.isHealthy(),
    direct: options.directAnswers,
    ...(tracing === undefined ? {} : { tracing }),
    upstreams: () => upstreamReadiness(upstreams),
    sources: () => sources.readiness(),
    readinessAccess: access.readinessAccess,
    operator: operatorPageOptions({
      settings: settings.operator,
      config: options.config,
      sources: {
        catalogs,
        disclosure,
        upstreams: () => upstreams.snapshots(),
        sessions: store,
        jobs,
        recentCalls: handlers.recentCalls,
        usage: handlers.usage,
        stateBackend: state.backend,
        ...(credentials === undefined || settings.credentials?.providers.length === 0
          ? {}
          : { connectionCounts: () => credentials.counts() }),
      },
      redact: infrastructure.secrets.redact,
    }),
    ...(infrastructure.credentials === undefined
      ? {}
      : {
          connect: {
            credentials: infrastructure.credentials,
            signIn: settings.credentials?.login !== undefined,
            matchToken: (token: string) => access.policy.matchToken(token),
            ownerOf: credentialOwnerOf,
            bearerAuth: access.bearerAuth,
            rateLimiter: state.rateLimiter,
            failedAttempts: access.failedAttempts,
            originPolicy: access.originPolicy,
            isDraining: () => draining,
            secureCookies: settings.credentials?.publicUrl?.startsWith('https:') === true,
          },
        }),
  });
  const metricsApp =
    settings.http.metricsPort === undefined
      ? undefined
      : buildMetricsApp({
          log,
          metrics,
          catalogs,
          runner,
          sessions: live,
          originPolicy: access.originPolicy,
        });
  return {
    app,
    metricsApp,
    sessions: live,
    modern,
    following,
    isDraining: () => draining,
    startDraining() {
      if (draining) return false;
      draining = true;
      return true;
    },
  };
}
