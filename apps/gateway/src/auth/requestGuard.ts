import type { RateLimiter } from '@skillgate/state';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gatewayError.js';
import { budgetIdOf, type Principal } from './accessPolicy.js';
import type { BearerAuth } from './bearerAuth.js';
import type { OriginPolicy } from './originPolicy.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who sent the request; set by the request guard on every guarded route. */
    principal: Principal | null;
    /** When the request's credential stops being valid (ms since the epoch): OAuth tokens only. */
    credentialValidUntil: number | null;
    /** The validated OAuth access token (auth/callerToken.ts): a token exchange's subject, nothing else. */
    accessToken: string | null;
  }
}

/** Options of registerGuardedRoutes: everything a request is admitted by. */
export interface RequestGuardOptions {
  /** True once shutdown has started: new requests get 503. */
  readonly isDraining: () => boolean;
  readonly originPolicy: OriginPolicy;
  /** Who a request comes from: static tokens and OAuth access tokens (docs/auth.md). */
  readonly bearerAuth: BearerAuth;
  /** Per-principal budgets (shared by every replica with the Redis backend). */
  readonly rateLimiter: RateLimiter;
  /** Body bytes one request's worth of budget covers (`rate_limit.bytes_per_request`). */
  readonly bodyBytesPerRequest: number;
}

const CORS_HEADERS = {
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers':
    'Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID',
  'Access-Control-Expose-Headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate',
  'Access-Control-Max-Age': '600',
};
const CORS_ENTRIES = Object.entries(CORS_HEADERS);

/** Charges `cost` requests' worth to the principal, or throws RATE_LIMITED with Retry-After. */
export async function chargeRateLimit(
  rateLimiter: RateLimiter,
  principal: Principal,
  cost = 1,
): Promise<void> {
  const retryAfter = await rateLimiter.take(budgetIdOf(principal), cost);
  if (retryAfter > 0) {
    throw new GatewayError('RATE_LIMITED', `Rate limit exceeded for ${principal.name}`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

/**
 * Registers `routes` in one Fastify scope behind the one admission check (docs/auth.md, "Admission"): not
 * draining, Origin/Host allowed (CORS headers for an allowed browser origin), a principal from the bearer
 * token, and the principal's rate limit charged — one request plus one per `bodyBytesPerRequest` bytes of
 * declared body, so large bodies spend the budget they cost. All of it runs before the body is read: a
 * refused caller costs no parsing. The MCP endpoint and the operator page are both registered here.
 */
export function registerGuardedRoutes(
  app: FastifyInstance,
  options: RequestGuardOptions,
  routes: (scope: FastifyInstance) => void,
): void {
  const guard = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (options.isDraining())
      throw new GatewayError('SHUTTING_DOWN', 'The gateway is shutting down', {
        headers: { 'Retry-After': '5' },
      });
    const origin = options.originPolicy.check(request.headers.origin, request.headers.host);
    if (origin !== undefined) {
      // On the raw response: the MCP handler hands it to a transport (hijack), and Fastify's own replies
      // (errors, OPTIONS) merge them in too.
      const raw = reply.raw;
      raw.setHeader('Access-Control-Allow-Origin', origin);
      raw.setHeader('Vary', 'Origin');
      for (const [name, value] of CORS_ENTRIES) raw.setHeader(name, value);
    }
    if (request.method === 'OPTIONS') return;
    const { principal, validUntil, accessToken } = await options.bearerAuth.authenticate({
      authorization: request.headers.authorization,
      url: request.url,
      address: request.ip,
      // Only a refusal names the resource, so only a refusal reads the scheme and host.
      origin: () => `${request.protocol}://${request.host}`,
    });
    request.principal = principal;
    request.credentialValidUntil = validUntil ?? null;
    request.accessToken = accessToken ?? null;
    // Every later log line of this request (including "request completed") names the principal.
    request.log = request.log.child({ principal: principal.name });
    reply.log = request.log;
    const declared = Number(request.headers['content-length'] ?? 0);
    const bodyCost = Number.isFinite(declared) ? Math.floor(declared / options.bodyBytesPerRequest) : 0;
    await chargeRateLimit(options.rateLimiter, principal, 1 + bodyCost);
  };
  app.decorateRequest('principal', null);
  app.decorateRequest('credentialValidUntil', null);
  app.decorateRequest('accessToken', null);
  void app.register(async (scope) => {
    scope.addHook('onRequest', guard);
    routes(scope);
  });
}
