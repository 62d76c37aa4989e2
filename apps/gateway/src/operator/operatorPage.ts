import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { html } from '../core/html.js';
import { GatewayError } from '../errors/gatewayError.js';
import { toGatewayError } from '../errors/toGatewayError.js';
import { collectOperatorView, type OperatorSources } from './collectOperatorView.js';
import type { OperatorAccess } from './operatorAccess.js';
import { renderOperatorPage } from './renderOperatorPage.js';

/** What the operator page uses; built by createGateway (docs/operator.md). */
export interface OperatorPageOptions {
  /** Who may open it (the request guard has already admitted the request, as for /mcp). */
  readonly access: OperatorAccess;
  readonly sources: OperatorSources;
}

// Bounded like every client string (docs/limits.md): a filter or a principal name, never a document.
const querySchema = z.object({
  q: z.string().max(200).optional(),
  as: z.string().max(128).optional(),
});

// No script may run and nothing may load from elsewhere; forms post only back here; no framing (clickjacking).
const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

/** The page's refusals as a small page: the same status and headers the error table gives /mcp. */
function sendError(error: FastifyError | Error, reply: FastifyReply): FastifyReply {
  const mapped = toGatewayError(error);
  if (mapped.code === 'INTERNAL') reply.log.error({ err: error }, 'operator page failed');
  const hint =
    mapped.code === 'UNAUTHORIZED'
      ? 'Send an admin token: Authorization: Bearer <token> (a token entry with admin: true).'
      : mapped.code === 'NOT_ADMIN'
        ? 'This token may use the MCP endpoint but not the operator page (admin: true opens it).'
        : '';
  const page = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>skillgate: ${mapped.status}</title></head><body><h1>${mapped.status} ${mapped.code}</h1><p>${mapped.code === 'INTERNAL' ? 'Internal error' : mapped.message}</p><p>${hint}</p></body></html>`;
  return reply
    .code(mapped.status)
    .headers({ ...mapped.headers, ...SECURITY_HEADERS })
    .type('text/html; charset=utf-8')
    .send(page.text);
}

/**
 * Registers `GET /`, the operator page (docs/operator.md), in the request guard's scope: the page answers only
 * where /mcp would (Host/Origin, draining), with the same credentials, and each view costs one request.
 */
export function registerOperatorPage(app: FastifyInstance, options: OperatorPageOptions): void {
  app.route({
    method: 'GET',
    url: '/',
    errorHandler: (error, _request, reply) => sendError(error, reply),
    handler: async (request, reply) => {
      const principal = options.access.authorize(request.principal);
      const query = querySchema.safeParse(request.query);
      if (!query.success) {
        throw new GatewayError('INVALID_REQUEST', 'q is at most 200 and as at most 128 characters');
      }
      const view = await collectOperatorView(options.sources, query.data, principal.name);
      return reply.headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(renderOperatorPage(view));
    },
  });
}
