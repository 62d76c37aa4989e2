import type { Credentials, FlowView } from '@skillgate/credentials';
import type { RateLimiter } from '@skillgate/state';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import type { BearerAuth } from '../auth/bearerAuth.js';
import type { FailedAttempts } from '../auth/failedAttempts.js';
import type { OriginPolicy } from '../auth/originPolicy.js';
import { chargeRateLimit } from '../auth/requestGuard.js';
import { GatewayError } from '../errors/gatewayError.js';
import { toGatewayError } from '../errors/toGatewayError.js';
import { createBrowserBinding, NO_FLOW } from './browserBinding.js';
import { registerConnectionsRoutes } from './connectionsRoutes.js';
import {
  type BindingChoices,
  bindingPage,
  connectedPage,
  labelOf,
  pageHeaders,
  refusalPage,
  secretPage,
} from './connectPages.js';
import { expired, PAGE_HEADERS, sendPage } from './pageReplies.js';

/** Options of registerConnectRoutes. */
export interface ConnectRoutesOptions {
  /** Flows, sign-in, callbacks and the store (@skillgate/credentials). */
  readonly credentials: Pick<
    Credentials,
    | 'flow'
    | 'loginUrl'
    | 'startSignIn'
    | 'isSignInCallback'
    | 'completeSignIn'
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

// A flow id as the gateway mints it; anything else is no link.
const FLOW_ID = /^[A-Za-z0-9_-]{16,64}$/;
const MAX_FORM_BYTES = 16_384;

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
 * proves which principal it is (signs in at the gateway's issuer, or types its gateway token) and gets a
 * sealed, HttpOnly binding cookie; only then is it sent to the provider (or asked for the secret), and the
 * provider's callback is accepted only in the browser that holds the binding of its flow, so a connect link
 * sent to someone else cannot store their account under the sender's name. /connections lists and removes
 * the caller's own connections, by token (API, CLI) or by the same binding.
 */
export function registerConnectRoutes(app: FastifyInstance, options: ConnectRoutesOptions): void {
  const { credentials } = options;
  const binding = createBrowserBinding(credentials.requestState, options.secureCookies);
  const boundOwner = (request: FastifyRequest, flow: string) => binding.ownerOf(request, flow);
  const bind = (reply: FastifyReply, owner: string, flow: string) => binding.bind(reply, owner, flow);
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
      if (credentials.isSignInCallback(url)) {
        const secrets = binding.signInOf(request);
        if (secrets === undefined) {
          throw new GatewayError(
            'CONNECT_REFUSED',
            'This browser did not start this sign-in. Open /connections in this browser and sign in from there.',
          );
        }
        bind(reply, await credentials.completeSignIn(url, secrets), NO_FLOW);
        return reply.headers(PAGE_HEADERS).redirect('/connections', 303);
      }
      const callback = await credentials.callbackOf(url);
      if (callback === undefined) throw expired();
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
      request.log.info({ audit: 'connect', provider: outcome.provider }, 'account connected');
      return sendPage(reply, connectedPage(labelOf(callback.flow)));
    });

    registerConnectionsRoutes(scope, {
      credentials,
      binding,
      signIn: options.signIn,
      ownerOfForm: (request) => ownerOfForm(request, undefined),
      apiOwner,
    });
  });
}
