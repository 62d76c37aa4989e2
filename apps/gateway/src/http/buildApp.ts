import { randomUUID } from 'node:crypto';
import {
  classifyInboundRequest,
  type InitializeRequest,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { ScriptRunner } from '@skillgate/runner';
import type { RateLimiter } from '@skillgate/state';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import type { BearerAuth } from '../auth/bearerAuth.js';
import { GatewayError } from '../errors/gatewayError.js';
import { toGatewayError } from '../errors/toGatewayError.js';
import type { LiveSessions } from '../legacy/liveSessions.js';
import { directRequestOf } from '../modern/directRequest.js';
import { createListenStreams } from '../modern/listenStreams.js';
import type { ModernEndpoint } from '../modern/modernEndpoint.js';
import type { Metrics } from '../observability/metrics.js';
import { RequestLogController } from '../observability/requestLogController.js';
import { type OperatorPageOptions, registerOperatorPage } from '../operator/operatorPage.js';
import type { CatalogSource } from '../reload/catalogSource.js';
import type { UpstreamReadiness } from '../upstreams/createGatewayUpstreamPool.js';
import { dropStalledReaders } from './dropStalledReaders.js';
import { limitConnections } from './limitConnections.js';
import type { OriginPolicy } from './requestGuards.js';
import { type JsonShape, mayExceedJsonBounds, scanJsonShape } from './scanJsonShape.js';
import { type ClientDeadlines, serverTimeouts } from './serverTimeouts.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request; set by the auth hook on the MCP endpoint. */
    principal: Principal | null;
  }
}

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
}

/** Everything buildApp wires into routes. */
export interface AppDeps {
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
  readonly originPolicy: OriginPolicy;
  /** Per-principal budgets (shared by every replica with the Redis backend). */
  readonly rateLimiter: RateLimiter;
  /** Who a request comes from: static tokens and OAuth access tokens (docs/auth.md). */
  readonly bearerAuth: BearerAuth;
  /** True once the catalog is loaded and until shutdown starts. */
  readonly isReady: () => boolean;
  /** True once shutdown has started: new MCP requests get 503. */
  readonly isDraining: () => boolean;
  /** Each upstream MCP server's state for /readyz; a down upstream never makes the gateway unready. */
  readonly upstreams?: () => readonly UpstreamReadiness[];
  /** Whether plain 2026-07-28 hot requests take the direct path (default true; tests compare both). */
  readonly direct?: boolean;
  /** The operator page at `GET /`; absent when the MCP endpoint itself is at `/` (docs/operator.md). */
  readonly operator?: OperatorPageOptions;
}

const CORS_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID',
  'Access-Control-Expose-Headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
  'Access-Control-Max-Age': '600',
};

/** The revisions of the 2026 era this gateway serves: what server/discover lists. */
const MODERN_REVISIONS: readonly string[] = ['2026-07-28'];
/** Every revision of both eras, newest first. */
const ALL_REVISIONS: readonly string[] = [...MODERN_REVISIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

/**
 * -32022 for a request of the 2026 shape lists exactly what server/discover lists (the spec requires the two
 * to agree; 2025-era revisions are reached through `initialize`, which dual-era clients fall back to). A
 * 2025-shaped request naming an unknown revision in its header gets every revision of both eras.
 */
const unsupportedRevision = (requested: string, supported: readonly string[]) =>
  new GatewayError('UNSUPPORTED_PROTOCOL_VERSION', `Unsupported protocol version: ${requested}`, {
    data: { supported, requested },
  });

const BATCH_REFUSED = 'Invalid Request: JSON-RPC batches need a 2025-03-26 session';

/**
 * Whether a request could carry a batch the gateway accepts: only a 2025-03-26 session may, and clients
 * of later revisions name theirs in MCP-Protocol-Version (the session's transport checks the rest).
 */
function mayHoldBatch(headers: FastifyRequest['headers']): boolean {
  if (typeof headers['mcp-session-id'] !== 'string') return false;
  const version = headers['mcp-protocol-version'];
  return version === undefined || version === '2025-03-26';
}

/** The id of a JSON-RPC request body, echoed in error answers when it is a valid id. */
const requestIdOf = (body: unknown): string | number | null => {
  const id = body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
};

/** Builds the Fastify app (never listens): /mcp for MCP streamable HTTP, plus health, readiness and metrics. */
export function buildApp(deps: AppDeps): FastifyInstance {
  const { settings, sessions, metrics } = deps;
  const app = Fastify({
    loggerInstance: deps.log,
    logController: new RequestLogController(),
    bodyLimit: settings.bodyLimitBytes,
    trustProxy: settings.trustProxy,
    genReqId: () => randomUUID(),
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
  app.decorateRequest('principal', null);
  const listenStreams = createListenStreams({
    maxTotal: settings.maxListenStreams,
    maxPerPrincipal: settings.maxListenStreamsPerPrincipal,
  });
  const jsonBounds = { maxDepth: settings.maxJsonDepth, maxKeys: settings.maxJsonKeys };

  // JSON is the only body the endpoint takes: anything else is a 415, not a string handed to the SDK.
  app.removeAllContentTypeParsers();
  // JSON bodies are parsed here, once, with Fastify's body limit (the SDK's own limit is skipped when
  // it receives a parsed body). An empty body (a DELETE with a JSON content type) is allowed.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    // A batch that can only be refused is refused before it is parsed (docs/limits.md).
    if (text.trimStart().startsWith('[') && !mayHoldBatch(request.headers)) {
      return done(new GatewayError('INVALID_REQUEST', BATCH_REFUSED), undefined);
    }
    // Width and depth are bounded before the body is parsed or any SDK code validates it (docs/limits.md).
    const shape: JsonShape = mayExceedJsonBounds(text, jsonBounds) ? scanJsonShape(text, jsonBounds) : {};
    if (shape.exceeded !== undefined) {
      // A request with an id gets its answer (-32602: the excess is in what it carries); anything else -32600.
      const id = shape.id;
      return done(
        shape.method !== undefined && id !== undefined && (typeof id === 'string' || Number.isInteger(id))
          ? new GatewayError('INVALID_ARGUMENTS', `Invalid params: the request is ${shape.exceeded}`, {
              requestId: id,
            })
          : new GatewayError('INVALID_REQUEST', `Invalid Request: the body is ${shape.exceeded}`),
        undefined,
      );
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(
        new GatewayError('PARSE_ERROR', 'Parse error: request body is not valid JSON', { cause: error }),
        undefined,
      );
    }
  });

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

  if (deps.operator !== undefined) registerOperatorPage(app, deps.operator);
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    if (!deps.isReady()) return reply.code(503).send({ status: 'not ready' });
    const catalog = deps.catalogs.current;
    // A root that could not be read (allowed by skills.allow_missing_roots) is named, so "ready with 0 skills"
    // is never silent.
    const missingRoots = catalog.problems.filter((p) => p.code === 'ROOT_UNREADABLE').map((p) => p.file);
    return {
      status: 'ready',
      skills: catalog.skills.size,
      ...(missingRoots.length === 0 ? {} : { missing_roots: missingRoots }),
      sandbox: deps.runner.isolation ?? null,
      upstreams: deps.upstreams?.() ?? [],
    };
  });
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.render({
      skillgate_sessions_open: sessions.size,
      skillgate_scripts_running: deps.runner.active,
      skillgate_scripts_queued: deps.runner.queued,
      skillgate_skills_loaded: deps.catalogs.current.skills.size,
    });
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
  });

  const path = settings.path;
  // Protected Resource Metadata (RFC 9728): path-aware, and at the root for clients that look there.
  if (deps.bearerAuth.oauthEnabled) {
    const metadataHandler = async (request: FastifyRequest, reply: FastifyReply) => {
      const document = deps.bearerAuth.metadata(`${request.protocol}://${request.host}`);
      return reply
        .header('Access-Control-Allow-Origin', '*')
        .header('Cache-Control', 'max-age=3600')
        .send(document);
    };
    const metadataPaths = [
      ...new Set([
        `/.well-known/oauth-protected-resource${path === '/' ? '' : path}`,
        '/.well-known/oauth-protected-resource',
      ]),
    ];
    for (const url of metadataPaths) {
      app.get(url, metadataHandler);
      app.options(url, async (_request, reply) =>
        reply
          .code(204)
          .headers({
            'Access-Control-Allow-Origin': '*',
            'Access-Control-Allow-Methods': 'GET, OPTIONS',
            'Access-Control-Allow-Headers': 'MCP-Protocol-Version',
          })
          .send(),
      );
    }
  }
  const chargeRateLimit = async (principal: Principal): Promise<void> => {
    const retryAfter = await deps.rateLimiter.take(principal.id);
    if (retryAfter > 0) {
      throw new GatewayError('RATE_LIMITED', `Rate limit exceeded for ${principal.name}`, {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
  };

  // Origin/Host, auth and rate limit run before the body is read: a rejected caller costs no parsing.
  const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (deps.isDraining())
      throw new GatewayError('SHUTTING_DOWN', 'The gateway is shutting down', {
        headers: { 'Retry-After': '5' },
      });
    const origin = deps.originPolicy.check(request.headers.origin, request.headers.host);
    if (origin !== undefined)
      void reply.headers({ 'Access-Control-Allow-Origin': origin, Vary: 'Origin', ...CORS_HEADERS });
    if (request.method === 'OPTIONS') return;
    const principal = await deps.bearerAuth.authenticate({
      authorization: request.headers.authorization,
      url: request.url,
      origin: `${request.protocol}://${request.host}`,
    });
    request.principal = principal;
    // Every later log line of this request (including "request completed") names the principal.
    if (request.log.level !== 'silent') {
      request.log = request.log.child({ principal: principal.name });
      reply.log = request.log;
    }
    await chargeRateLimit(principal);
  };

  app.route({
    method: 'OPTIONS',
    url: path,
    onRequest: guard,
    handler: async (_request, reply) => reply.code(204).send(),
  });
  app.route({
    method: ['PUT', 'PATCH'],
    url: path,
    handler: async () => {
      throw new GatewayError('METHOD_NOT_ALLOWED', 'Method not allowed', {
        headers: { Allow: 'GET, POST, DELETE' },
      });
    },
  });
  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: path,
    onRequest: guard,
    handler: async (request, reply) => {
      const principal = request.principal;
      if (principal === null) throw new GatewayError('UNAUTHORIZED', 'not authenticated');
      const body = request.body;
      // The guard charged one request; every further element of a batch is charged too.
      if (Array.isArray(body)) for (let i = 1; i < body.length; i++) await chargeRateLimit(principal);
      const sessionId = request.headers['mcp-session-id'];
      const route = await routeRequest(request, principal, typeof sessionId === 'string' ? sessionId : '');
      if (route.era === 'modern' && route.listen) {
        // Counted until the stream's response ends, however it ends (docs/limits.md, "Listen streams").
        reply.raw.once('close', listenStreams.acquire(principal));
      }
      // The SDK writes to the raw response from here on; headers Fastify hooks set (CORS) would be lost.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      reply.hijack();
      if (route.era === 'modern-direct') {
        // The hot path: a plain request answered without the SDK's per-request server (directAnswers.ts).
        const answer = await deps.modern.answer(principal, route.request);
        metrics.inc('skillgate_modern_requests_total', {
          path: answer === undefined ? 'sdk' : 'direct',
        });
        if (answer === undefined) await deps.modern.handle(request.raw, reply.raw, body, principal);
        else {
          reply.raw.writeHead(200, { 'content-type': 'application/json' });
          reply.raw.end(answer);
        }
      } else if (route.era === 'modern') {
        metrics.inc('skillgate_modern_requests_total', { path: 'sdk' });
        await deps.modern.handle(request.raw, reply.raw, body, principal);
      } else await route.session.transport.handleRequest(request.raw, reply.raw, body);
    },
  });

  /**
   * Picks the era of a request (docs/protocol-eras.md): a session id means a 2025-era session; an
   * `initialize` opens one; anything carrying the 2026-07-28 envelope (or claiming it badly) goes to the
   * modern side, which owns those answers; the rest is 2025-era traffic without a session.
   */
  const routeRequest = async (request: FastifyRequest, principal: Principal, sessionId: string) => {
    if (sessionId !== '') {
      const session = await sessions.find(sessionId, principal);
      if (session === undefined) throw new GatewayError('SESSION_NOT_FOUND', 'Session not found');
      return { era: 'legacy' as const, session };
    }
    if (request.method !== 'POST') {
      // No sessions outside the 2025 era: GET and DELETE need one.
      throw new GatewayError('METHOD_NOT_ALLOWED', 'Method not allowed without an Mcp-Session-Id', {
        headers: { Allow: 'POST' },
      });
    }
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object') {
      throw new GatewayError('INVALID_REQUEST', 'Invalid Request: expected a JSON-RPC message');
    }
    if (Array.isArray(body)) throw new GatewayError('INVALID_REQUEST', BATCH_REFUSED);
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const outcome = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: header('mcp-protocol-version'),
      mcpMethodHeader: header('mcp-method'),
      mcpNameHeader: header('mcp-name'),
      body,
    });
    if (outcome.kind === 'modern' && !MODERN_REVISIONS.includes(outcome.classification.revision ?? '')) {
      throw unsupportedRevision(outcome.classification.revision ?? 'unknown', MODERN_REVISIONS);
    }
    if (
      outcome.kind === 'modern' &&
      outcome.messageKind === 'request' &&
      outcome.message.method === 'tools/list' &&
      outcome.message.params?.cursor !== undefined
    ) {
      // The tool list is one page: no cursor names a page of it, so any cursor is refused at once instead of
      // taking the SDK's slow path (docs/limits.md, "Cursors").
      throw new GatewayError('INVALID_ARGUMENTS', 'Invalid params: unknown cursor (tools/list has one page)');
    }
    if (outcome.kind === 'modern') {
      const direct = deps.direct === false ? undefined : directRequestOf(outcome, header, settings.prompts);
      if (direct !== undefined) return { era: 'modern-direct' as const, request: direct };
    }
    if (outcome.kind !== 'legacy') {
      const listen =
        outcome.kind === 'modern' &&
        outcome.messageKind === 'request' &&
        outcome.message.method === 'subscriptions/listen';
      return { era: 'modern' as const, listen };
    }
    const version = header('mcp-protocol-version');
    if (version !== undefined && !ALL_REVISIONS.includes(version))
      throw unsupportedRevision(version, ALL_REVISIONS);
    if (outcome.reason === 'initialize') {
      return { era: 'legacy' as const, session: await sessions.open(principal, body as InitializeRequest) };
    }
    throw new GatewayError('SESSION_REQUIRED', 'Bad Request: Mcp-Session-Id header is required');
  };

  return app;
}
