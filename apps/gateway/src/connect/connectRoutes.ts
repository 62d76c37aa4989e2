import type { RateLimiter } from '@skillgate/state';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import type { BearerAuth } from '../auth/bearerAuth.js';
import type { FailedAttempts } from '../auth/failedAttempts.js';
import type { OriginPolicy } from '../auth/originPolicy.js';
import { chargeRateLimit } from '../auth/requestGuard.js';
import { GatewayError } from '../errors/gatewayError.js';
import { toGatewayError } from '../errors/toGatewayError.js';
import {
  type BindingChoices,
  bindingPage,
  connectedPage,
  connectionsPage,
  refusalPage,
  secretPage,
} from './connectPages.js';
import type { ConnectService, PendingFlow } from './connectService.js';

/** Options of registerConnectRoutes. */
export interface ConnectRoutesOptions {
  readonly service: ConnectService;
  /** The principal of a typed static gateway token (accessPolicy's constant-time match), or undefined. */
  readonly matchToken: (token: string) => Principal | undefined;
  /** The credential owner of a principal; undefined for the anonymous one (auth/accessPolicy.ts). */
  readonly ownerOf: (principal: Principal) => string | undefined;
  /** /connections with an Authorization header: the MCP endpoint's own authentication. */
  readonly bearerAuth: Pick<BearerAuth, 'authenticate'>;
  readonly rateLimiter: RateLimiter;
  /** Wrong tokens typed into the page count against the address as failed bearer tokens do. */
  readonly failedAttempts: FailedAttempts;
  /** The Host check of the endpoint (DNS rebinding): the pages answer only where /mcp would. */
  readonly originPolicy: OriginPolicy;
  readonly isDraining: () => boolean;
  /** Whether the browser cookie is Secure (`__Host-` prefixed): the public URL is https. */
  readonly secureCookies: boolean;
}

// No script, nothing loaded from elsewhere, forms post only back here, no framing, no referrer (the callback's
// code must not leak to another site through a link on the page).
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

// A flow id and a provider id: what the gateway mints and what config allows; anything else is no link.
const FLOW_ID = /^[A-Za-z0-9_-]{16,64}$/;
const PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
const MAX_FORM_BYTES = 16_384;
const MAX_SECRET_CHARS = 8192;

const sendPage = (reply: FastifyReply, page: string, status = 200): FastifyReply =>
  reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(page);

/**
 * A refusal with the error table's status: as JSON (the error's JSON-RPC body, as /mcp's) to a caller that
 * sent a token (the API, the CLI), else as a page. Internal errors are logged only.
 */
function sendRefusal(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const mapped = toGatewayError(error);
  if (mapped.code === 'INTERNAL') request.log.error({ err: error }, 'connect page failed');
  if (request.headers.authorization !== undefined) {
    return reply.code(mapped.status).headers(mapped.headers).send(mapped.toJsonRpc());
  }
  const message = mapped.code === 'INTERNAL' ? 'Internal error' : mapped.message;
  return sendPage(reply.headers(mapped.headers), refusalPage(mapped.code, message), mapped.status);
}

const formField = (body: unknown, name: string): string => {
  const value = body instanceof URLSearchParams ? body.get(name) : null;
  return value ?? '';
};

/**
 * Registers the connect pages and /connections (docs/credentials.md, "The connect page"): a browser first
 * proves which principal it is (signs in at the gateway's issuer, or types its gateway token), then is sent to
 * the provider or asked for the secret; the callback is accepted only from the browser that proved to be the
 * flow's principal. /connections lists and removes the caller's own connections, by token (API, CLI) or by
 * the same browser binding.
 */
export function registerConnectRoutes(app: FastifyInstance, options: ConnectRoutesOptions): void {
  const { service } = options;
  const cookieName = options.secureCookies ? '__Host-skillgate-connect' : 'skillgate-connect';
  const browserOwner = async (request: FastifyRequest): Promise<string | undefined> => {
    const header = request.headers.cookie;
    if (header === undefined) return undefined;
    const value = parseCookies(header)[cookieName];
    return value === undefined || value === '' ? undefined : service.browserOwner(value);
  };
  const bind = async (reply: FastifyReply, owner: string): Promise<void> => {
    const value = await service.bindBrowser(owner);
    // Lax: the provider's redirect back to /connect/callback is a top-level GET from its site and must carry it;
    // the forms that change anything are POSTs, which Lax does not send cross-site (and Origin is checked).
    reply.header(
      'Set-Cookie',
      serializeCookie(cookieName, value, {
        httpOnly: true,
        secure: options.secureCookies,
        sameSite: 'lax',
        path: '/',
        maxAge: 600,
      }),
    );
  };
  const pendingFlow = async (id: string): Promise<PendingFlow> => {
    const flow = FLOW_ID.test(id) ? await service.flow(id) : undefined;
    if (flow === undefined) {
      throw new GatewayError(
        'CONNECT_LINK_EXPIRED',
        'This link is unknown, expired or already used. Ask your agent again for a new one.',
      );
    }
    return flow;
  };
  const choices = (owner: string | undefined, base: string): BindingChoices => ({
    ...(service.signIn !== undefined && (owner === undefined || owner.startsWith('oauth:'))
      ? { signInUrl: `${base}/sign-in` }
      : {}),
    ...(owner === undefined || owner.startsWith('token:') ? { tokenAction: base } : {}),
  });
  // A typed token binds the browser only to the principal it belongs to, and only to the expected one.
  const principalOfForm = (request: FastifyRequest, expectedOwner: string | undefined): string => {
    const retryAfter = options.failedAttempts.retryAfter(request.ip);
    if (retryAfter > 0) {
      throw new GatewayError('RATE_LIMITED', 'Too many wrong tokens from this address; try again later', {
        headers: { 'Retry-After': String(retryAfter) },
      });
    }
    const token = formField(request.body, 'token').trim();
    const principal = token === '' ? undefined : options.matchToken(token);
    if (principal === undefined) options.failedAttempts.record(request.ip);
    const owner = principal === undefined ? undefined : options.ownerOf(principal);
    if (owner === undefined || (expectedOwner !== undefined && owner !== expectedOwner)) {
      throw new GatewayError(
        'CONNECT_REFUSED',
        'That is not the token of the person this link was made for. Nothing was stored.',
      );
    }
    return owner;
  };

  const signIn = async (returnTo: string): Promise<URL> => {
    if (service.signIn === undefined) {
      throw new GatewayError('CONNECT_REFUSED', 'Sign-in is not configured (credentials.connect.login).');
    }
    return service.signIn(returnTo);
  };

  void app.register(async (scope) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: MAX_FORM_BYTES },
      (_request, body, done) => done(null, new URLSearchParams(String(body))),
    );
    scope.addHook('onRequest', async (request) => {
      if (options.isDraining()) {
        throw new GatewayError('SHUTTING_DOWN', 'The gateway is shutting down', {
          headers: { 'Retry-After': '5' },
        });
      }
      options.originPolicy.check(undefined, request.headers.host);
      // A form posted from another site (login CSRF, a forced disconnect) carries that site's Origin.
      if (request.method === 'POST') {
        const origin = request.headers.origin;
        const own = `${request.protocol}://${request.host}`;
        if (origin !== own)
          throw new GatewayError('FORBIDDEN_ORIGIN', `Origin ${origin ?? '(none)'} is not allowed`);
      }
    });
    scope.setErrorHandler(sendRefusal);

    scope.get<{ Params: { flow: string } }>('/connect/:flow', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      const base = `/connect/${flow.id}`;
      if ((await browserOwner(request)) !== flow.owner) {
        return sendPage(reply, bindingPage(`Connect ${flow.label}`, choices(flow.owner, base)));
      }
      if (flow.kind === 'secret') return sendPage(reply, secretPage(flow, `${base}/secret`));
      return reply.headers(PAGE_HEADERS).redirect((await service.authorizationUrl(flow)).href, 303);
    });
    scope.get<{ Params: { flow: string } }>('/connect/:flow/sign-in', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      return reply.headers(PAGE_HEADERS).redirect((await signIn(`/connect/${flow.id}`)).href, 303);
    });
    scope.post<{ Params: { flow: string } }>('/connect/:flow', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      await bind(reply, principalOfForm(request, flow.owner));
      return reply.headers(PAGE_HEADERS).redirect(`/connect/${flow.id}`, 303);
    });
    scope.post<{ Params: { flow: string } }>('/connect/:flow/secret', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      if (flow.kind !== 'secret' || (await browserOwner(request)) !== flow.owner) {
        throw new GatewayError(
          'CONNECT_REFUSED',
          'This browser has not shown it is the person of this link.',
        );
      }
      const value = formField(request.body, 'secret').trim();
      if (value === '' || value.length > MAX_SECRET_CHARS) {
        throw new GatewayError('INVALID_REQUEST', `The value must be 1 to ${MAX_SECRET_CHARS} characters.`);
      }
      await service.storeSecret(flow, value);
      request.log.info(
        { audit: 'connect', provider: flow.provider, outcome: 'connected' },
        'account connected',
      );
      return sendPage(reply, connectedPage(flow));
    });
    scope.get('/connect/callback', async (request, reply) => {
      const url = new URL(request.url, `${request.protocol}://${request.host}`);
      const outcome = await service.completeCallback(url, await browserOwner(request));
      if (outcome.kind === 'signed_in') {
        await bind(reply, outcome.owner);
        return reply.headers(PAGE_HEADERS).redirect(outcome.returnTo, 303);
      }
      const { flow } = outcome;
      request.log.info(
        { audit: 'connect', provider: flow.provider, outcome: 'connected' },
        'account connected',
      );
      return sendPage(reply, connectedPage(flow));
    });

    // /connections: the caller's own connections; by token (Authorization) as JSON, else by the browser binding.
    const apiOwner = async (request: FastifyRequest): Promise<string | undefined> => {
      if (request.headers.authorization === undefined) return undefined;
      const { principal } = await options.bearerAuth.authenticate({
        authorization: request.headers.authorization,
        url: request.url,
        address: request.ip,
        origin: () => `${request.protocol}://${request.host}`,
      });
      await chargeRateLimit(options.rateLimiter, principal);
      const owner = options.ownerOf(principal);
      if (owner === undefined) {
        throw new GatewayError('CONNECT_REFUSED', 'A caller without a token has no connected accounts.');
      }
      return owner;
    };
    scope.get('/connections', async (request, reply) => {
      const api = await apiOwner(request);
      if (api !== undefined) {
        const connections = await service.connections(api);
        return reply.header('Cache-Control', 'no-store').send({
          connections: connections.map((c) => ({
            provider: c.provider,
            state: c.state,
            ...(c.expiresAt === undefined ? {} : { expires_at: new Date(c.expiresAt).toISOString() }),
          })),
        });
      }
      const owner = await browserOwner(request);
      if (owner === undefined) {
        return sendPage(reply, bindingPage('Your connected accounts', choices(undefined, '/connections')));
      }
      return sendPage(reply, connectionsPage(await service.connections(owner)));
    });
    scope.get('/connections/sign-in', async (_request, reply) =>
      reply.headers(PAGE_HEADERS).redirect((await signIn('/connections')).href, 303),
    );
    scope.post('/connections', async (request, reply) => {
      await bind(reply, principalOfForm(request, undefined));
      return reply.headers(PAGE_HEADERS).redirect('/connections', 303);
    });
    scope.post<{ Params: { provider: string } }>('/connections/:provider/delete', async (request, reply) => {
      const owner = await browserOwner(request);
      if (owner === undefined) {
        throw new GatewayError(
          'CONNECT_REFUSED',
          'This browser has not shown who it is; open /connections first.',
        );
      }
      if (PROVIDER_ID.test(request.params.provider)) await service.disconnect(owner, request.params.provider);
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
      const removed =
        PROVIDER_ID.test(request.params.provider) &&
        (await service.disconnect(owner, request.params.provider));
      request.log.info(
        { audit: 'disconnect', provider: request.params.provider, removed },
        'account disconnected',
      );
      return reply.code(removed ? 204 : 404).send();
    });
  });
}
