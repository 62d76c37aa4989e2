import { createHash, timingSafeEqual } from 'node:crypto';
import type { Catalog } from '@skillgate/skills';
import picomatch from 'picomatch';
import { createCatalogMemo } from '../core/catalogMemo.js';
import { GatewayError } from '../errors/gatewayError.js';

/**
 * A caller of the gateway: a configured token, or `anonymous` when anonymous access is on. `id` is the identity
 * every cache, session owner, job owner and rate-limit bucket is keyed by; it carries the kind of credential
 * (`token:<name>`, `anon`) so that no configured name can ever be mistaken for another kind of caller.
 */
export interface Principal {
  readonly id: string;
  /** The name an operator gave it (token name, or `anonymous`): for client profiles, logs and the CLI. */
  readonly name: string;
  /** Glob patterns of the skills this principal may see and use. */
  readonly skills: readonly string[];
  /**
   * Who rate limits and per-caller caps count this principal as, when not `id` (budgetIdOf): an OAuth subject
   * has one budget whatever grants its tokens carry, though each grant set has its own `id`.
   */
  readonly budgetId?: string;
  /**
   * Whose connected accounts this principal uses (credentialOwnerOf): `oauth:<issuer>#<subject>` for an OAuth
   * subject whatever its grants; absent for static tokens (their `id`) and the anonymous principal (none).
   */
  readonly credentialOwner?: string;
}

/** The key of the principal's rate-limit bucket and per-caller caps (listen streams, script and upstream slots). */
export const budgetIdOf = (principal: Principal): string => principal.budgetId ?? principal.id;

/**
 * The key a principal's connected accounts are stored under (docs/credentials.md, "The store"), or undefined
 * for the anonymous principal: requests without a token are everyone's, so they connect nothing.
 */
export function credentialOwnerOf(principal: Principal): string | undefined {
  if (principal.id === 'anon') return undefined;
  return principal.credentialOwner ?? principal.id;
}

/** A configured token, stored only as its sha256. */
export interface TokenEntry {
  readonly name: string;
  readonly sha256: Buffer;
  readonly skills: readonly string[];
}

/** Options of createAccessPolicy. */
export interface AccessPolicyOptions {
  readonly tokens: readonly TokenEntry[];
  readonly allowAnonymous: boolean;
  readonly anonymousSkills: readonly string[];
  /** Called the first time a request carries an Authorization header that is ignored because no token is configured. */
  readonly onAuthorizationIgnored?: () => void;
}

/** Who may call the gateway and which skills each principal may use. */
export interface AccessPolicy {
  /** Resolves the Authorization header to a principal, or throws UNAUTHORIZED; without tokens it is ignored. */
  authenticate(authorization: string | undefined): Principal;
  /** The principal of a configured static token, or undefined; compared in constant time. */
  matchToken(token: string): Principal | undefined;
  /** The skill names the principal may use in this catalog; undefined means all. Cached per catalog and view. */
  allowedSkills(principal: Principal, catalog: Catalog): ReadonlySet<string> | undefined;
}

/** Name of the principal of requests without a token (reserved: no token may be called that, packages/config). */
export const ANONYMOUS_NAME = 'anonymous';

/** The principal of requests without a token. */
export function anonymousPrincipal(skills: readonly string[]): Principal {
  return { id: 'anon', name: ANONYMOUS_NAME, skills };
}

/** The principal of a configured static token. */
export function tokenPrincipal(name: string, skills: readonly string[]): Principal {
  return { id: `token:${name}`, name, skills };
}

const UNAUTHORIZED_HEADERS = { 'WWW-Authenticate': 'Bearer realm="skillgate"' };

/**
 * The key of what a principal may see: its skill globs. Views (allowed sets, rendered lists, Skills
 * extension views) are cached by it, not by id, so OAuth principals — as many as an IdP has subjects —
 * share one cached view per grant set and the caches stay bounded.
 */
export function viewKeyOf(principal: Principal): string {
  // Asked several times per request: joined once per globs array (a token's array is the config's own).
  let key = viewKeys.get(principal.skills);
  if (key === undefined) {
    key = principal.skills.join('\n');
    viewKeys.set(principal.skills, key);
  }
  return key;
}
const viewKeys = new WeakMap<readonly string[], string>();

/** Builds the access policy from the resolved tokens (docs/deploy.md, "Several agents on one gateway"). */
export function createAccessPolicy(options: AccessPolicyOptions): AccessPolicy {
  const anonymous = anonymousPrincipal(options.anonymousSkills);
  const tokensRequired = options.tokens.length > 0 && !options.allowAnonymous;
  // One Set per (view, catalog), so that the catalog's per-Set caches hit on every request.
  const allowedMemo = createCatalogMemo<ReadonlySet<string> | undefined>();
  const matchers = new Map<string, (name: string) => boolean>();
  let ignoredReported = false;

  const matcherFor = (principal: Principal): ((name: string) => boolean) => {
    const key = principal.skills.join('\n');
    let matcher = matchers.get(key);
    if (matcher === undefined) {
      matcher = picomatch(principal.skills as string[], { dot: true });
      matchers.set(key, matcher);
    }
    return matcher;
  };

  const matchToken = (presentedToken: string): Principal | undefined => {
    if (options.tokens.length === 0) return undefined;
    const presented = createHash('sha256').update(presentedToken).digest();
    let found: TokenEntry | undefined;
    // Compare against every token so the time taken does not tell which one (or whether any) matched.
    for (const token of options.tokens) {
      if (timingSafeEqual(presented, token.sha256) && found === undefined) found = token;
    }
    return found === undefined ? undefined : tokenPrincipal(found.name, found.skills);
  };

  return {
    authenticate(authorization) {
      if (authorization === undefined || authorization === '') {
        if (tokensRequired)
          throw new GatewayError('UNAUTHORIZED', 'missing bearer token', { headers: UNAUTHORIZED_HEADERS });
        return anonymous;
      }
      if (options.tokens.length === 0) {
        // Without tokens there is nothing to check a header against: clients set up with a token (as the
        // README shows) still work against a tokenless local gateway. Reported once, not per request.
        if (!ignoredReported) {
          ignoredReported = true;
          options.onAuthorizationIgnored?.();
        }
        return anonymous;
      }
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (match?.[1] === undefined) {
        throw new GatewayError('UNAUTHORIZED', 'invalid bearer token', { headers: UNAUTHORIZED_HEADERS });
      }
      const found = matchToken(match[1]);
      if (found === undefined) {
        throw new GatewayError('UNAUTHORIZED', 'invalid bearer token', { headers: UNAUTHORIZED_HEADERS });
      }
      return found;
    },

    matchToken,

    allowedSkills(principal, catalog) {
      return allowedMemo(catalog, viewKeyOf(principal), () => {
        if (principal.skills.includes('*')) return undefined;
        const matches = matcherFor(principal);
        return new Set([...catalog.skills.keys()].filter((name) => matches(name)));
      });
    },
  };
}
