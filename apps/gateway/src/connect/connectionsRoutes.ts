import type { Credentials } from '@skillgate/credentials';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gatewayError.js';
import { type BrowserBinding, NO_FLOW } from './browserBinding.js';
import { bindingPage, connectionsPage } from './connectPages.js';
import { expired, PAGE_HEADERS, PROVIDER_ID, sendPage } from './pageReplies.js';

/** What the /connections routes use of the connect routes. */
export interface ConnectionsRoutesOptions {
  readonly credentials: Pick<Credentials, 'startSignIn' | 'connections' | 'disconnect'>;
  readonly binding: BrowserBinding;
  /** Whether OAuth principals can sign in at the gateway's issuer (`credentials.connect.login`). */
  readonly signIn: boolean;
  /** The owner of the gateway token typed into the page's form (refused: CONNECT_REFUSED). */
  readonly ownerOfForm: (request: FastifyRequest) => string;
  /** The owner of the request's Authorization, or undefined without one (the API, the CLI). */
  readonly apiOwner: (request: FastifyRequest) => Promise<string | undefined>;
}

/**
 * /connections (docs/credentials.md, "People see and undo it"): the caller's own connections as JSON to a
 * bearer token, or as a page to a browser bound by its typed token or its sign-in, with a disconnect form per
 * provider; DELETE /connections/<provider> for the API.
 */
export function registerConnectionsRoutes(scope: FastifyInstance, options: ConnectionsRoutesOptions): void {
  const { credentials, binding, signIn, ownerOfForm, apiOwner } = options;
  scope.get('/connections/sign-in', async (_request, reply) => {
    if (!signIn) throw expired();
    const { url, secrets } = await credentials.startSignIn();
    binding.startSignIn(reply, secrets);
    return reply.headers(PAGE_HEADERS).redirect(url, 303);
  });
  scope.get('/connections', async (request, reply) => {
    const api = await apiOwner(request);
    if (api !== undefined) {
      const connections = await credentials.connections(api);
      return reply.header('Cache-Control', 'no-store').send({
        connections: connections.map((c) => ({
          provider: c.provider,
          state: c.state,
          ...(c.expiresAt === undefined ? {} : { expires_at: new Date(c.expiresAt).toISOString() }),
        })),
      });
    }
    const owner = binding.ownerOf(request, NO_FLOW);
    if (owner === undefined) {
      const signInLink = signIn ? { signInUrl: '/connections/sign-in' } : {};
      return sendPage(
        reply,
        bindingPage('Your connected accounts', { ...signInLink, tokenAction: '/connections' }),
      );
    }
    return sendPage(reply, connectionsPage(await credentials.connections(owner)));
  });
  scope.post('/connections', async (request, reply) => {
    binding.bind(reply, ownerOfForm(request), NO_FLOW);
    return reply.headers(PAGE_HEADERS).redirect('/connections', 303);
  });
  scope.post<{ Params: { provider: string } }>('/connections/:provider/delete', async (request, reply) => {
    const owner = binding.ownerOf(request, NO_FLOW);
    if (owner === undefined) {
      throw new GatewayError(
        'CONNECT_REFUSED',
        'This browser has not shown who it is; open /connections first.',
      );
    }
    if (PROVIDER_ID.test(request.params.provider))
      await credentials.disconnect(owner, request.params.provider);
    request.log.info({ audit: 'disconnect', provider: request.params.provider }, 'account disconnected');
    return reply.headers(PAGE_HEADERS).redirect('/connections', 303);
  });
  scope.delete<{ Params: { provider: string } }>('/connections/:provider', async (request, reply) => {
    const owner = await apiOwner(request);
    if (owner === undefined) {
      throw new GatewayError('UNAUTHORIZED', 'missing bearer token', {
        headers: { 'WWW-Authenticate': 'Bearer realm="skillgate"' },
      });
    }
    const { removed } = PROVIDER_ID.test(request.params.provider)
      ? await credentials.disconnect(owner, request.params.provider)
      : { removed: false };
    request.log.info(
      { audit: 'disconnect', provider: request.params.provider, removed },
      'account disconnected',
    );
    return reply.code(removed ? 204 : 404).send();
  });
}
