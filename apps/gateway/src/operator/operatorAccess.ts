import type { Principal } from '../auth/accessPolicy.js';
import { tokenPrincipal } from '../auth/accessPolicy.js';
import { GatewayError } from '../errors/gatewayError.js';

/** Options of createOperatorAccess. */
export interface OperatorAccessOptions {
  /** Names of the static tokens configured with `admin: true`. */
  readonly adminTokens: readonly string[];
  /** True when neither auth.tokens nor auth.oauth is configured: the endpoint is open, and so is the page. */
  readonly anonymousOpen: boolean;
}

/** Who may open the operator page (docs/operator.md, "Access"). */
export interface OperatorAccess {
  /**
   * The principal the request guard authenticated (with the endpoint's own credentials), if it may open the
   * page: an admin (or, in anonymous mode, anyone); else throws UNAUTHORIZED (401) or NOT_ADMIN (403).
   */
  authorize(principal: Principal | null): Principal;
}

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="skillgate"' };

/**
 * Builds the page's access rule: without any auth configured the page is open as the MCP endpoint is (loopback
 * unless auth.allow_anonymous); with auth, only a static token with `admin: true` opens it — no token 401, any
 * other principal (a token, an OAuth access token) 403.
 */
export function createOperatorAccess(options: OperatorAccessOptions): OperatorAccess {
  const admins = new Set(options.adminTokens.map((name) => tokenPrincipal(name, []).id));
  return {
    authorize(principal) {
      if (principal === null)
        throw new GatewayError('UNAUTHORIZED', 'not authenticated', { headers: CHALLENGE });
      if (options.anonymousOpen) return principal;
      // With auth.allow_anonymous a request without a token is served on /mcp; the page still wants one.
      if (principal.id === 'anon') {
        throw new GatewayError('UNAUTHORIZED', 'the operator page needs an admin bearer token', {
          headers: CHALLENGE,
        });
      }
      if (!admins.has(principal.id)) {
        throw new GatewayError('NOT_ADMIN', `token "${principal.name}" is not an admin token (admin: true)`);
      }
      return principal;
    },
  };
}
