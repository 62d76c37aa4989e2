import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { RequestLogController } from '../observability/requestLogController.js';
import { type MetricsRouteOptions, registerMetricsRoute } from './statusRoutes.js';

/** Options of buildMetricsApp. */
export interface MetricsAppOptions extends MetricsRouteOptions {
  readonly log: FastifyBaseLogger;
}

/**
 * The listener of `observability.metrics_port`: `/metrics` and nothing else, so a NetworkPolicy can open the
 * MCP port to agents and this one only to the scraper (docs/observability.md). Never listens itself.
 */
export function buildMetricsApp(options: MetricsAppOptions): FastifyInstance {
  // Request lines at debug as on the main port; short deadlines: a scrape is one small GET.
  const app = Fastify({
    loggerInstance: options.log,
    logController: new RequestLogController(),
    bodyLimit: 1024,
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    requestTimeout: 10_000,
  });
  registerMetricsRoute(app, options);
  return app;
}
