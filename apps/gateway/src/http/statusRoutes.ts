import type { ScriptRunner } from '@skillgate/runner';
import type { SourceReadiness } from '@skillgate/sources';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BearerAuth } from '../auth/bearerAuth.js';
import type { OriginPolicy } from '../auth/originPolicy.js';
import type { CatalogSource } from '../core/catalogSource.js';
import type { LiveSessions } from '../legacy/liveSessions.js';
import type { Metrics } from '../observability/metrics.js';
import type { OperatorAccess } from '../operator/operatorAccess.js';
import type { UpstreamReadiness } from '../upstreams/createGatewayUpstreamPool.js';

/** What the status routes report on. */
export interface StatusRoutesOptions {
  readonly metrics: Metrics;
  readonly catalogs: Pick<CatalogSource, 'current'>;
  readonly runner: Pick<ScriptRunner, 'isolation' | 'active' | 'queued'>;
  readonly sessions: Pick<LiveSessions, 'size'>;
  /** True once the catalog is loaded and until shutdown starts. */
  readonly isReady: () => boolean;
  /** Each upstream MCP server's state; a down upstream never makes the gateway unready. */
  readonly upstreams?: () => readonly UpstreamReadiness[];
  readonly sources?: () => readonly SourceReadiness[];
  /** Who may read /readyz's names (upstreams, sources, missing roots): whoever may open the operator page. */
  readonly readinessDetails: AdminCheck;
  /**
   * The endpoint's Host/Origin check (DNS rebinding): a web page that points its own name at a loopback gateway
   * reads neither /readyz's names nor /metrics. Probes and scrapers send the address they reach.
   */
  readonly originPolicy: OriginPolicy;
}

/** The operator page's rule (operator/operatorAccess.ts), applied with the endpoint's own credentials. */
export interface AdminCheck {
  readonly bearerAuth: Pick<BearerAuth, 'authenticate'>;
  readonly access: OperatorAccess;
}

/**
 * Passes when the request comes from an admin: with no auth configured anyone (the endpoint is open too), else
 * only an admin token; else throws UNAUTHORIZED (401, with the challenge) or NOT_ADMIN (403).
 */
async function authorizeAdmin(request: FastifyRequest, check: AdminCheck): Promise<void> {
  const { principal } = await check.bearerAuth.authenticate({
    authorization: request.headers.authorization,
    url: request.url,
    address: request.ip,
    origin: () => `${request.protocol}://${request.host}`,
  });
  check.access.authorize(principal);
}

/**
 * True when the request may read the names: whoever passes authorizeAdmin. A missing or wrong token is no error
 * here: probes send none and get the summary.
 */
async function mayReadDetails(request: FastifyRequest, deps: StatusRoutesOptions): Promise<boolean> {
  try {
    deps.originPolicy.check(request.headers.origin, request.headers.host);
    await authorizeAdmin(request, deps.readinessDetails);
    return true;
  } catch {
    return false;
  }
}

/**
 * `/healthz` and `/readyz`: status, skill count and sandbox for anyone (the probes); missing roots, upstreams and
 * sources, which name internal hosts, paths and ids, only for an admin token or when no auth is configured.
 */
export function registerStatusRoutes(app: FastifyInstance, deps: StatusRoutesOptions): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    if (!deps.isReady()) return reply.code(503).send({ status: 'not ready' });
    const catalog = deps.catalogs.current;
    const sandbox = deps.runner.isolation ?? null;
    if (!(await mayReadDetails(request, deps))) {
      return { status: 'ready', skills: catalog.skills.size, sandbox };
    }
    // A root that could not be read (allowed by skills.allow_missing_roots) is named, so "ready with 0 skills"
    // is never silent.
    const missingRoots = catalog.problems.filter((p) => p.code === 'ROOT_UNREADABLE').map((p) => p.file);
    return {
      status: 'ready',
      skills: catalog.skills.size,
      ...(missingRoots.length === 0 ? {} : { missing_roots: missingRoots }),
      sandbox,
      upstreams: deps.upstreams?.() ?? [],
      sources: deps.sources?.() ?? [],
    };
  });
}

/** The figures `/metrics` reports on. */
export type MetricsRouteOptions = Pick<
  StatusRoutesOptions,
  'metrics' | 'catalogs' | 'runner' | 'sessions' | 'originPolicy'
> & {
  /**
   * Who may scrape: set on the MCP port, where the series (skill and upstream names, usage) would otherwise
   * answer anyone who reaches the endpoint; unset on the metrics port's own listener, kept for the scraper.
   */
  readonly admin?: AdminCheck;
};

/** `/metrics` (Prometheus text), on the main app or on the metrics port's own (metricsApp.ts). */
export function registerMetricsRoute(app: FastifyInstance, deps: MetricsRouteOptions): void {
  const { metrics, sessions } = deps;
  app.get('/metrics', async (request, reply) => {
    try {
      deps.originPolicy.check(request.headers.origin, request.headers.host);
    } catch {
      // The series name skills and upstreams: not for a page that rebound its name to this address.
      return reply.code(403).send({ error: 'Host or Origin not allowed' });
    }
    // With auth configured, as the operator page: 401 without a token, 403 for a token that is not an admin's.
    if (deps.admin !== undefined) await authorizeAdmin(request, deps.admin);
    const text = await metrics.render({
      skillgate_sessions_open: sessions.size,
      skillgate_scripts_running: deps.runner.active,
      skillgate_scripts_queued: deps.runner.queued,
      skillgate_skills_loaded: deps.catalogs.current.skills.size,
    });
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
  });
}
