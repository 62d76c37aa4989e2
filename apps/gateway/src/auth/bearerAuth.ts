import {
  getOAuthProtectedResourceMetadataUrl,
  type OAuthProtectedResourceMetadata,
} from '@modelcontextprotocol/server';
import { GatewayError } from '../errors/gatewayError.js';
import { type AccessPolicy, anonymousPrincipal, type Principal } from './accessPolicy.js';
import type { FailedAttempts } from './failedAttempts.js';
import type { OAuthVerifier } from './oauthVerifier.js';

/** The OAuth side of bearerAuth: the verifier and what the challenges and metadata name. */
export interface OAuthResource {
  readonly verifier: OAuthVerifier;
  readonly issuer: string;
  /** server.public_url, when set; else each request's own origin names the resource. */
  readonly publicUrl: string | undefined;
  /** server.path. */
  readonly path: string;
  readonly requiredScopes: readonly string[];
  readonly scopesSupported: readonly string[];
}

/** Options of createBearerAuth. */
export interface BearerAuthOptions {
  /** Static tokens (auth.tokens). */
  readonly policy: AccessPolicy;
  readonly oauth: OAuthResource | undefined;
  readonly allowAnonymous: boolean;
  readonly anonymousSkills: readonly string[];
  /** Failed OAuth token checks per client address (auth.oauth.failed_attempts_per_minute). */
  readonly failedAttempts: FailedAttempts;
}

/** What bearerAuth reads of a request. */
export interface BearerRequest {
  readonly authorization: string | undefined;
  /** The request target (path and query). */
  readonly url: string;
  /** The client's address (behind a trusted proxy, the one it forwarded). */
  readonly address: string;
  /** scheme://host[:port] the request came to (used only without server.public_url, and only to refuse). */
  origin(): string;
}

/** What authenticate() found: the principal, and until when its credential holds. */
export interface Authenticated {
  readonly principal: Principal;
  /** Milliseconds since the epoch after which an OAuth access token is refused; undefined for static tokens. */
  readonly validUntil: number | undefined;
  /**
   * The validated OAuth access token itself: the subject of a token exchange and nothing else (docs/credentials.md,
   * "Never passed on"); undefined for static tokens and anonymous requests.
   */
  readonly accessToken?: string;
}

/** Who a request comes from: static tokens and OAuth access tokens, both from the Authorization header. */
export interface BearerAuth {
  /** True when auth.oauth is configured (the metadata routes exist). */
  readonly oauthEnabled: boolean;
  /** The request's principal, or throws UNAUTHORIZED / INSUFFICIENT_SCOPE with the RFC 6750 challenge. */
  authenticate(request: BearerRequest): Promise<Authenticated>;
  /** The Protected Resource Metadata (RFC 9728) for requests to origin; undefined without auth.oauth. */
  metadata(origin: string): OAuthProtectedResourceMetadata | undefined;
}

// RFC 6750 §2.3 allows a token in the query; MCP authorization forbids it (URLs end up in logs and
// proxies), so a request that carries one is refused whole, whatever else it has.
const QUERY_TOKEN = /[?&]access_token=/;
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const quoted = (value: string): string => `"${value.replace(/["\\]/g, '\\$&')}"`;

/** A `WWW-Authenticate: Bearer …` value (RFC 6750 §3) from its parameters, skipping empty ones. */
function challenge(params: Readonly<Record<string, string | undefined>>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '')
    .map(([name, value]) => `${name}=${quoted(value)}`);
  return parts.length === 0 ? 'Bearer' : `Bearer ${parts.join(', ')}`;
}

/**
 * Builds the authenticator (docs/auth.md). A Bearer value is first compared with the static tokens, then
 * verified as an OAuth access token. Without auth.oauth the static policy answers alone, as before.
 */
export function createBearerAuth(options: BearerAuthOptions): BearerAuth {
  const { policy, oauth } = options;
  const anonymous = anonymousPrincipal(options.anonymousSkills);
  const resourceOf = (origin: string) => `${oauth?.publicUrl ?? origin}${oauth?.path ?? ''}`;
  const scopeText = oauth?.requiredScopes.join(' ');
  const metadataUrlOf = (origin: string) => getOAuthProtectedResourceMetadataUrl(new URL(resourceOf(origin)));

  const refuse = (origin: string, error?: string, description?: string): GatewayError =>
    new GatewayError('UNAUTHORIZED', description ?? 'missing bearer token', {
      headers: {
        'WWW-Authenticate': challenge({
          error,
          error_description: description,
          resource_metadata: metadataUrlOf(origin),
          scope: scopeText,
        }),
      },
    });

  return {
    oauthEnabled: oauth !== undefined,
    async authenticate(request) {
      if (QUERY_TOKEN.test(request.url)) {
        const description = 'access tokens are accepted only in the Authorization header';
        if (oauth === undefined) {
          throw new GatewayError('UNAUTHORIZED', description, {
            headers: { 'WWW-Authenticate': challenge({ realm: 'skillgate', error: 'invalid_request' }) },
          });
        }
        throw refuse(request.origin(), 'invalid_request', description);
      }
      if (oauth === undefined)
        return { principal: policy.authenticate(request.authorization), validUntil: undefined };
      const authorization = request.authorization;
      if (authorization === undefined || authorization === '') {
        if (options.allowAnonymous) return { principal: anonymous, validUntil: undefined };
        throw refuse(request.origin());
      }
      const token = BEARER.exec(authorization)?.[1];
      if (token === undefined)
        throw refuse(request.origin(), 'invalid_token', 'malformed Authorization header');
      const configured = policy.matchToken(token);
      if (configured !== undefined) return { principal: configured, validUntil: undefined };
      const { failedAttempts } = options;
      const { address } = request;
      // Only a check that asks the authorization server (introspecting a new opaque token, fetching the keys
      // for an unknown kid) spends the address's budget (failedAttempts.ts): a JWT that verifies against the
      // cached keys costs the server nothing and is answered on its merits, so one client sending garbage
      // from a shared NAT does not lock out the others. Checks under way count too, so a burst of new tokens
      // sent at once is bounded like a sequence.
      let counted = false;
      const beforeServerCall = (): void => {
        if (counted) return;
        const wait = failedAttempts.retryAfter(address);
        if (wait > 0) {
          throw new GatewayError(
            'RATE_LIMITED',
            'Too many failed authentication attempts from this address',
            {
              headers: { 'Retry-After': String(wait) },
            },
          );
        }
        failedAttempts.begin(address);
        counted = true;
      };
      let verified: Awaited<ReturnType<OAuthVerifier['verify']>>;
      try {
        verified = await oauth.verifier.verify(token, beforeServerCall);
      } catch (error) {
        if (error instanceof GatewayError && error.code === 'RATE_LIMITED') throw error;
        if (counted) failedAttempts.record(address);
        // Whatever went wrong (a bad token, an unreachable issuer), the answer is a 401, never a 5xx.
        const description = error instanceof GatewayError ? error.message : 'token could not be verified';
        throw refuse(request.origin(), 'invalid_token', description);
      } finally {
        if (counted) failedAttempts.end(address);
      }
      const missing = oauth.requiredScopes.filter((scope) => !verified.scopes.includes(scope));
      if (missing.length > 0) {
        // One challenge naming every scope the endpoint needs, so one new token fixes it.
        throw new GatewayError('INSUFFICIENT_SCOPE', `token lacks scope ${missing.join(' ')}`, {
          headers: {
            'WWW-Authenticate': challenge({
              error: 'insufficient_scope',
              error_description: `token lacks scope ${missing.join(' ')}`,
              scope: scopeText,
              resource_metadata: metadataUrlOf(request.origin()),
            }),
          },
        });
      }
      return { principal: verified.principal, validUntil: verified.validUntil, accessToken: token };
    },

    metadata(origin) {
      if (oauth === undefined) return undefined;
      return {
        resource: resourceOf(origin),
        authorization_servers: [oauth.issuer],
        scopes_supported: [...oauth.scopesSupported],
        bearer_methods_supported: ['header'],
        resource_name: 'skillgate',
      };
    },
  };
}
