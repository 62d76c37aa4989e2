import type { Credentials, FlowView } from '@skillgate/credentials';
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
  labelOf,
  pageHeaders,
  refusalPage,
  secretPage,
} from './connectPages.js';

/** Options of registerConnectRoutes. */
export interface ConnectRoutesOptions {
  /** Flows, sign-in, callbacks and the store (@skillgate/credentials). */
  readonly credentials: Pick<
    Credentials,
    | 'flow'
    | 'loginUrl'
    | 'startSignIn'
    | 'authorizationUrl'
    | 'authorizationOrigin'
    | 'callbackOf'
    | 'completeCallback'
    | 'storeSecret'
    | 'connections'
    | 'disconnect'
    | 'requestState'
  >;
  /** Whether OAuth principals can sign in at the gateway's issuer (`credentials.connect.login`). */
  readonly signIn: boolean;
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

const PAGE_HEADERS = pageHeaders();

// A flow id and a provider id: what the gateway mints and what config allows; anything else is no link.
const FLOW_ID = /^[A-Za-z0-9_-]{16,64}$/;
const PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;
const MAX_FORM_BYTES = 16_384;
const BINDING_MS = 10 * 60_000;
// The binding cookie is sealed by the requestState codec with this subject, which no tool name can be: a
// requestState is never a binding, and a binding never a requestState.
const BINDING_SUBJECT = '\u0000browser';
// The binding of /connections is to the principal alone, not to a flow.
const NO_FLOW = '';
// A browser that started a sign-in for /connections is bound to that sign-in's flow as this (no principal
// has that name): only its own callback completes the sign-in, so a callback link sent by someone else
// cannot sign a person's browser in as the sender (login CSRF).
const SIGNING_IN = '\u0000signing-in';

const sendPage = (
  reply: FastifyReply,
  page: string,
  status = 200,
  headers: Record<string, string> = PAGE_HEADERS,
): FastifyReply => reply.code(status).headers(headers).type('text/html; charset=utf-8').send(page);

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

const expired = (): GatewayError =>
  new GatewayError(
    'CONNECT_LINK_EXPIRED',
    'This link is unknown, expired or already used. Ask your agent again for a new one.',
  );

/**
 * Registers the connect pages and /connections (docs/credentials.md, "The connect page"): a browser first
 * proves which principal it is (signs in at the gateway's issuer, or types its gateway token) and gets a
 * sealed, HttpOnly binding cookie; only then is it sent to the provider (or asked for the secret), and the
 * provider's callback is accepted only in the browser that holds the binding of its flow, so a connect link
 * sent to someone else cannot store their account under the sender's name. /connections lists and removes
 * the caller's own connections, by token (API, CLI) or by the same binding.
 */
export function registerConnectRoutes(app: FastifyInstance, options: ConnectRoutesOptions): void {
  const { credentials } = options;
  const cookieName = options.secureCookies ? '__Host-skillgate-connect' : 'skillgate-connect';

  /** The principal this browser proved to be, for `flow` (NO_FLOW: for /connections). */
  const boundOwner = (request: FastifyRequest, flow: string): string | undefined => {
    const header = request.headers.cookie;
    const value = header === undefined ? undefined : parseCookies(header)[cookieName];
    if (value === undefined || value === '') return undefined;
    try {
      const claims = credentials.requestState.decode(value);
      return claims.subject === BINDING_SUBJECT && claims.flow === flow ? claims.principal : undefined;
    } catch {
      return undefined;
    }
  };
  const bind = (reply: FastifyReply, owner: string, flow: string): void => {
    const value = credentials.requestState.encode({
      flow,
      principal: owner,
      subject: BINDING_SUBJECT,
      expiresAt: Date.now() + BINDING_MS,
    });
    // Lax: the provider's redirect back to /connect/callback is a top-level GET from its site and must carry
    // it; the forms that change anything are POSTs, which Lax keeps from other sites (and Origin is checked).
    reply.header(
      'Set-Cookie',
      serializeCookie(cookieName, value, {
        httpOnly: true,
        secure: options.secureCookies,
        sameSite: 'lax',
        path: '/',
        maxAge: BINDING_MS / 1000,
      }),
    );
  };
  const pendingFlow = async (id: string): Promise<FlowView> => {
    const flow = FLOW_ID.test(id) ? await credentials.flow(id) : undefined;
    if (flow === undefined) throw expired();
    return flow;
  };
  const choices = (owner: string | undefined, base: string): BindingChoices => ({
    ...(options.signIn && owner?.startsWith('oauth:') === true ? { signInUrl: `${base}/sign-in` } : {}),
    ...(owner === undefined || owner.startsWith('token:') ? { tokenAction: base } : {}),
  });
  // A typed token binds the browser only to the principal it belongs to, and only to the expected one.
  const ownerOfForm = (request: FastifyRequest, expectedOwner: string | undefined): string => {
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
  // /connections by token (Authorization), as the MCP endpoint authenticates and charges it.
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
        if (origin !== `${request.protocol}://${request.host}`) {
          throw new GatewayError('FORBIDDEN_ORIGIN', `Origin ${origin ?? '(none)'} is not allowed`);
        }
      }
    });
    scope.setErrorHandler(sendRefusal);

    scope.get<{ Params: { flow: string } }>('/connect/:flow', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      const base = `/connect/${flow.id}`;
      if (boundOwner(request, flow.id) !== flow.principal) {
        // A provider that does not answer its metadata now fails at the next step, with its own answer.
        const provider = await credentials.authorizationOrigin(flow.provider).catch(() => undefined);
        const page = bindingPage(`Connect ${labelOf(flow)}`, choices(flow.principal, base));
        return sendPage(reply, page, 200, pageHeaders(provider === undefined ? [] : [provider]));
      }
      if (flow.kind === 'secret') return sendPage(reply, secretPage(flow, `${base}/secret`));
      const url = await credentials.authorizationUrl(flow.id, flow.principal);
      return reply.headers(PAGE_HEADERS).redirect(url, 303);
    });
    scope.get<{ Params: { flow: string } }>('/connect/:flow/sign-in', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      return reply.headers(PAGE_HEADERS).redirect(await credentials.loginUrl(flow.id), 303);
    });
    scope.post<{ Params: { flow: string } }>('/connect/:flow', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      bind(reply, ownerOfForm(request, flow.principal), flow.id);
      return reply.headers(PAGE_HEADERS).redirect(`/connect/${flow.id}`, 303);
    });
    scope.post<{ Params: { flow: string } }>('/connect/:flow/secret', async (request, reply) => {
      const flow = await pendingFlow(request.params.flow);
      if (boundOwner(request, flow.id) !== flow.principal) {
        throw new GatewayError(
          'CONNECT_REFUSED',
          'This browser has not shown it is the person of this link.',
        );
      }
      await credentials.storeSecret(flow.id, flow.principal, formField(request.body, 'secret'));
      request.log.info({ audit: 'connect', provider: flow.provider }, 'account connected');
      return sendPage(reply, connectedPage(labelOf(flow)));
    });
    scope.get('/connect/callback', async (request, reply) => {
      const url = new URL(request.url, `${request.protocol}://${request.host}`).href;
      const callback = await credentials.callbackOf(url);
      if (callback === undefined) throw expired();
      if (callback.kind === 'sign-in') {
        if (boundOwner(request, callback.flowId) !== SIGNING_IN) {
          throw new GatewayError(
            'CONNECT_REFUSED',
            'This browser did not start this sign-in. Open /connections in this browser and sign in from there.',
          );
        }
        const outcome = await credentials.completeCallback(url);
        if (outcome.kind !== 'signed-in') throw expired();
        bind(reply, outcome.principal, NO_FLOW);
        return reply.headers(PAGE_HEADERS).redirect('/connections', 303);
      }
      // A provider's code is redeemed only in the browser that proved to be the flow's principal.
      if (
        callback.kind === 'authorization' &&
        boundOwner(request, callback.flow.id) !== callback.flow.principal
      ) {
        throw new GatewayError(
          'CONNECT_REFUSED',
          'This browser did not open this connect link. Open the link your agent gave you in this browser.',
        );
      }
      const outcome = await credentials.completeCallback(url);
      if (outcome.kind === 'login') {
        // Signed in as the flow's principal (checked against the ID token): bound, and on to the provider.
        bind(reply, callback.flow.principal, callback.flow.id);
        return reply.headers(PAGE_HEADERS).redirect(outcome.redirect, 303);
      }
      if (outcome.kind !== 'connected') throw expired();
      request.log.info({ audit: 'connect', provider: outcome.provider }, 'account connected');
      return sendPage(reply, connectedPage(labelOf(callback.flow)));
    });

    scope.get('/connections/sign-in', async (_request, reply) => {
      if (!options.signIn) throw expired();
      const { id, url } = await credentials.startSignIn();
      bind(reply, SIGNING_IN, id);
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
      const owner = boundOwner(request, NO_FLOW);
      if (owner === undefined) {
        const signIn = options.signIn ? { signInUrl: '/connections/sign-in' } : {};
        return sendPage(
          reply,
          bindingPage('Your connected accounts', { ...signIn, tokenAction: '/connections' }),
        );
      }
      return sendPage(reply, connectionsPage(await credentials.connections(owner)));
    });
    scope.post('/connections', async (request, reply) => {
      bind(reply, ownerOfForm(request, undefined), NO_FLOW);
      return reply.headers(PAGE_HEADERS).redirect('/connections', 303);
    });
    scope.post<{ Params: { provider: string } }>('/connections/:provider/delete', async (request, reply) => {
      const owner = boundOwner(request, NO_FLOW);
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
  });
}
