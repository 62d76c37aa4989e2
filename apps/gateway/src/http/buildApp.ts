import { randomBytes } from 'node:crypto';
import type { ScriptRunner } from '@skillgate/runner';
import type { SourceReadiness } from '@skillgate/sources';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import type { BearerAuth } from '../auth/bearerAuth.js';
import { withCallerToken } from '../auth/callerToken.js';
import { chargeRateLimit, type RequestGuardOptions, registerGuardedRoutes } from '../auth/requestGuard.js';
import { type ConnectRoutesOptions, registerConnectRoutes } from '../connect/connectRoutes.js';
import type { CatalogSource } from '../core/catalogSource.js';
import { type JsonAnswer, unwritableAnswerJson, writeJsonAnswer } from '../direct/resultWriter.js';
import { GatewayError } from '../errors/gatewayError.js';
import { toGatewayError } from '../errors/toGatewayError.js';
import type { LiveSessions } from '../legacy/liveSessions.js';
import { createListenStreams } from '../modern/listenStreams.js';
import type { ModernEndpoint } from '../modern/modernEndpoint.js';
import { LazyChildLogger } from '../observability/lazyChildLogger.js';
import type { Metrics } from '../observability/metrics.js';
import { RequestLogController } from '../observability/requestLogController.js';
import type { Tracing } from '../observability/tracing.js';
import type { OperatorAccess } from '../operator/operatorAccess.js';
import { type OperatorPageOptions, registerOperatorPage } from '../operator/operatorPage.js';
import { LazyAbort } from '../tools/lazyAbort.js';
import type { UpstreamReadiness } from '../upstreams/createGatewayUpstreamPool.js';
import { dropStalledReaders } from './dropStalledReaders.js';
import { endAtCredentialExpiry } from './endAtCredentialExpiry.js';
import { registerJsonBodyParser } from './jsonBodyParser.js';
import { limitConnections } from './limitConnections.js';
import { registerOAuthMetadataRoutes } from './oauthMetadataRoutes.js';
import { startRequestSpan } from './requestSpan.js';
import { createRequestRouter } from './routeRequest.js';
import { type ClientDeadlines, serverTimeouts } from './serverTimeouts.js';
import { registerMetricsRoute, registerStatusRoutes } from './statusRoutes.js';

/** How the HTTP side behaves, from the `server` config section (docs/limits.md). */
export interface HttpSettings {
  /** The MCP endpoint's path (`server.path`). */
  readonly path: string;
  readonly bodyLimitBytes: number;
  /** Trust X-Forwarded-* headers; every connection then comes from the proxy. */
  readonly trustProxy: boolean;
  readonly deadlines: ClientDeadlines;
  /** Open TCP connections at most (0 = no cap). */
  readonly maxConnections: number;
  /** Open TCP connections from one client address at most (0 = no cap; ignored behind a trusted proxy). */
  readonly maxConnectionsPerAddress: number;
  /** How long output may sit unread before the connection is dropped. */
  readonly sendTimeoutMs: number;
  readonly maxListenStreams: number;
  readonly maxListenStreamsPerPrincipal: number;
  /** Bounds of a JSON body's nesting and width, checked before it is parsed. */
  readonly maxJsonDepth: number;
  readonly maxJsonKeys: number;
  /** Whether skills are prompts too (`skills.prompts`): only then does the direct path answer prompts/*. */
  readonly prompts: boolean;
  /** The port /metrics is served on instead of the main one (`observability.metrics_port`); unset: the main port. */
  readonly metricsPort?: number;
}

/** Options of buildApp: everything it wires into routes. */
export interface AppOptions {
  /** The connect pages and /connections, when credentials are configured (docs/credentials.md). */
  readonly connect?: ConnectRoutesOptions;
  readonly settings: HttpSettings;
  readonly log: FastifyBaseLogger;
  readonly metrics: Metrics;
  /** The catalog /readyz and /metrics report on. */
  readonly catalogs: Pick<CatalogSource, 'current'>;
  /** The script runner /readyz and /metrics report on. */
  readonly runner: Pick<ScriptRunner, 'isolation' | 'active' | 'queued'>;
  readonly sessions: LiveSessions;
  /** The 2026-07-28 side of the endpoint. */
  readonly modern: ModernEndpoint;
  /** The one admission check of the MCP endpoint and the operator page (auth/requestGuard.ts). */
  readonly guard: RequestGuardOptions;
  /** Serves the OAuth metadata routes (docs/auth.md). */
  readonly bearerAuth: Pick<BearerAuth, 'oauthEnabled' | 'metadata'>;
  /** True once the catalog is loaded and until shutdown starts. */
  readonly isReady: () => boolean;
  /** Each upstream MCP server's state for /readyz; a down upstream never makes the gateway unready. */
  readonly upstreams?: () => readonly UpstreamReadiness[];
  /** Each fetched source's state, commit, digest and last error, for /readyz. */
  readonly sources?: () => readonly SourceReadiness[];
  /** Whether plain 2026-07-28 hot requests take the direct path (default true; tests compare both). */
  readonly direct?: boolean;
  /** Spans of MCP requests; absent when tracing is off, and then nothing about tracing runs. */
  readonly tracing?: Tracing;
  /** The operator page at `GET /`; absent when the MCP endpoint itself is at `/` (docs/operator.md). */
  readonly operator?: OperatorPageOptions;
  /** Who may read /readyz's names and /metrics on this port: the operator page's rule, also when there is no page. */
  readonly readinessAccess: OperatorAccess;
}

/**
 * Request ids for logs: a random prefix per process (replicas and restarts never share one), then a counter.
 * A UUID per request cost about 1 µs of every request.
 */
const requestIds = (): (() => string) => {
  const prefix = randomBytes(6).toString('base64url');
  let next = 0;
  return () => `${prefix}-${(next++).toString(36)}`;
};

/** The id of a JSON-RPC request body, echoed in error answers when it is a valid id. */
const requestIdOf = (body: unknown): string | number | null => {
  const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
};

const trustPeerOnly = (_address: string, hop: number): boolean => hop === 0;

/** Builds the Fastify app (never listens): /mcp for MCP streamable HTTP, plus health, readiness and metrics. */
export function buildApp(options: AppOptions): FastifyInstance {
  const { settings, sessions, metrics, tracing } = options;
  const app = Fastify({
    loggerInstance: options.log,
    logController: new RequestLogController(),
    // A request's logger becomes a pino child only when it writes (observability/lazyChildLogger.ts).
    childLoggerFactory: LazyChildLogger.factory,
    bodyLimit: settings.bodyLimitBytes,
    // The peer (the proxy) only, not every hop: the client's address is the entry the proxy appended to
    // X-Forwarded-For. `true` would take the leftmost entry, which the client writes itself; a hop count
    // (1) trusts no one in Fastify 5.
    trustProxy: settings.trustProxy ? trustPeerOnly : false,
    genReqId: requestIds(),
    // Slow clients are cut off by node:http's own deadlines (docs/decisions.md, "Connections").
    ...serverTimeouts(settings.deadlines),
  });
  limitConnections(app.server, {
    maxConnections: settings.maxConnections,
    // Behind a trusted proxy every connection comes from the proxy: a per-address cap would cap everyone.
    maxPerAddress: settings.trustProxy ? 0 : settings.maxConnectionsPerAddress,
    onRefused: (reason) => metrics.inc('skillgate_rejected_connections_total', { reason }),
  });
  dropStalledReaders(app.server, {
    sendTimeoutMs: settings.sendTimeoutMs,
    onDropped: () => metrics.inc('skillgate_rejected_connections_total', { reason: 'unread_output' }),
  });
  const routeRequest = createRequestRouter({
    sessions,
    direct: options.direct ?? true,
    prompts: settings.prompts,
  });
  const listenStreams = createListenStreams({
    maxTotal: settings.maxListenStreams,
    maxPerPrincipal: settings.maxListenStreamsPerPrincipal,
  });

  registerJsonBodyParser(app, { maxDepth: settings.maxJsonDepth, maxKeys: settings.maxJsonKeys });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = toGatewayError(error);
    metrics.inc('skillgate_rejected_requests_total', { reason: mapped.code.toLowerCase() });
    if (mapped.code === 'INTERNAL') request.log.error({ err: error }, 'request failed');
    else if (mapped.code === 'STATE_FULL') request.log.error({ code: mapped.code }, error.message);
    else request.log.info({ code: mapped.code }, mapped.message);
    void reply
      .code(mapped.status)
      .headers(mapped.headers)
      .send(mapped.toJsonRpc(mapped.requestId ?? requestIdOf(request.body)));
  });

  const admin = { bearerAuth: options.guard.bearerAuth, access: options.readinessAccess };
  registerStatusRoutes(app, {
    ...options,
    originPolicy: options.guard.originPolicy,
    readinessDetails: admin,
  });
  if (settings.metricsPort === undefined) {
    registerMetricsRoute(app, { ...options, originPolicy: options.guard.originPolicy, admin });
  }
  const path = settings.path;
  registerOAuthMetadataRoutes(app, options.bearerAuth, path);

  app.route({
    method: ['PUT', 'PATCH'],
    url: path,
    handler: async () => {
      throw new GatewayError('METHOD_NOT_ALLOWED', 'Method not allowed', {
        headers: { Allow: 'GET, POST, DELETE' },
      });
    },
  });
  // Outside the bearer guard: a browser has no token; the routes check Host, Origin and draining themselves.
  if (options.connect !== undefined) registerConnectRoutes(app, options.connect);
  registerGuardedRoutes(app, options.guard, (scope) => {
    if (options.operator !== undefined) registerOperatorPage(scope, options.operator);
    scope.route({
      method: 'OPTIONS',
      url: path,
      handler: async (_request, reply) => reply.code(204).send(),
    });
    scope.route({
      method: ['GET', 'POST', 'DELETE'],
      url: path,
      handler: async (request, reply) => {
        const principal = request.principal;
        if (principal === null) throw new GatewayError('UNAUTHORIZED', 'not authenticated');
        // An OAuth request's token is held for its async work: a token exchange's subject (auth/callerToken.ts).
        return withCallerToken(request.accessToken ?? undefined, () => {
          // Off, tracing costs this one comparison: no span, no context, no wrapped response.
          if (tracing === undefined || request.method !== 'POST') return serve(request, reply, principal);
          const span = startRequestSpan({ tracing, metrics, request, principal, response: reply.raw });
          return span === undefined
            ? serve(request, reply, principal)
            : span.run(() => serve(request, reply, principal));
        });
      },
    });
  });

  // Counted on every 2026-07-28 request: bound once (observability/metrics.ts, `counter`).
  const directRequests = metrics.counter('skillgate_modern_requests_total', { path: 'direct' });
  const sdkRequests = metrics.counter('skillgate_modern_requests_total', { path: 'sdk' });

  /** One MCP request or stream on the endpoint, after the guard admitted it. */
  async function serve(request: FastifyRequest, reply: FastifyReply, principal: Principal): Promise<void> {
    const body = request.body;
    // The guard charged one request; every further element of a batch is charged too.
    if (Array.isArray(body) && body.length > 1)
      await chargeRateLimit(options.guard.rateLimiter, principal, body.length - 1);
    const sessionId = request.headers['mcp-session-id'];
    const route = await routeRequest(request, principal, typeof sessionId === 'string' ? sessionId : '');
    if (route.era === 'modern' && route.listen) {
      // Counted until the stream's response ends, however it ends (docs/limits.md, "Listen streams").
      reply.raw.once('close', listenStreams.acquire(principal));
    }
    // A stream lives no longer than the access token that opened it.
    const validUntil = request.credentialValidUntil;
    if (validUntil !== null && (request.method === 'GET' || (route.era === 'modern' && route.listen)))
      endAtCredentialExpiry(reply.raw, validUntil);
    // The SDK writes to the raw response from here on (the guard's CORS headers are already on it).
    reply.hijack();
    if (route.era === 'modern-direct') {
      // The hot path: a plain request answered without the SDK's per-request server (direct/modernAnswers.ts).
      // As on the SDK's path, a client that goes away before its answer aborts the call (a run stops).
      const abort = new LazyAbort();
      const raw = reply.raw;
      if (route.request.method === 'tools/call')
        raw.once('close', () => {
          if (!raw.writableFinished) abort.abort();
        });
      let answer: JsonAnswer | undefined;
      try {
        answer = await options.modern.answer(principal, route.request, abort);
      } catch (error) {
        // A result that cannot be rendered (a value circular or too deep) still gets an answer: the reply is
        // hijacked, so nothing else would write one.
        answer = unwritableAnswerJson(route.request.id, error);
      }
      (answer === undefined ? sdkRequests : directRequests)();
      if (answer === undefined) await options.modern.handle(request.raw, reply.raw, body, principal);
      else writeJsonAnswer(reply.raw, answer);
    } else if (route.era === 'modern') {
      sdkRequests();
      await options.modern.handle(request.raw, reply.raw, body, principal);
    } else await route.session.transport.handleRequest(request.raw, reply.raw, body);
  }

  return app;
}
