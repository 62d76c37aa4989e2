import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BearerAuth } from '../auth/bearerAuth.js';

/**
 * Protected Resource Metadata (RFC 9728) when OAuth is on: path-aware for the MCP endpoint at `path`, and at
 * the root for clients that look there (docs/auth.md).
 */
export function registerOAuthMetadataRoutes(
  app: FastifyInstance,
  bearerAuth: Pick<BearerAuth, 'oauthEnabled' | 'metadata'>,
  path: string,
): void {
  if (bearerAuth.oauthEnabled) {
    const metadataHandler = async (request: FastifyRequest, reply: FastifyReply) => {
      const document = bearerAuth.metadata(`${request.protocol}://${request.host}`);
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
}
