import type { ScriptRunner } from '@skillgate/runner';
import type { SourceReadiness } from '@skillgate/sources';
import type { FastifyInstance } from 'fastify';
import type { CatalogSource } from '../core/catalogSource.js';
import type { LiveSessions } from '../legacy/liveSessions.js';
import type { Metrics } from '../observability/metrics.js';
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
}

/** `/healthz` and `/readyz` (skills, missing roots, sandbox, upstreams, sources). */
export function registerStatusRoutes(app: FastifyInstance, deps: StatusRoutesOptions): void {
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
      sources: deps.sources?.() ?? [],
    };
  });
}

/** The figures `/metrics` reports on. */
export type MetricsRouteOptions = Pick<StatusRoutesOptions, 'metrics' | 'catalogs' | 'runner' | 'sessions'>;

/** `/metrics` (Prometheus text), on the main app or on the metrics port's own (metricsApp.ts). */
export function registerMetricsRoute(app: FastifyInstance, deps: MetricsRouteOptions): void {
  const { metrics, sessions } = deps;
  app.get('/metrics', async (_request, reply) => {
    const text = await metrics.render({
      skillgate_sessions_open: sessions.size,
      skillgate_scripts_running: deps.runner.active,
      skillgate_scripts_queued: deps.runner.queued,
      skillgate_skills_loaded: deps.catalogs.current.skills.size,
    });
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(text);
  });
}
