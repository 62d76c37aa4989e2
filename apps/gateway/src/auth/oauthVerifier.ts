import { createHash } from 'node:crypto';
import type { AuthInfo, OAuthTokenVerifier } from '@modelcontextprotocol/server';
import { errors, type JWSAlgorithm, type JWTPayload, jwtVerify } from 'jose';
import { GatewayError } from '../errors/gatewayError.js';
import type { Principal } from './accessPolicy.js';
import { discoverIssuer, type IssuerMetadata } from './discoverIssuer.js';
import { introspectToken } from './introspectToken.js';
import { createJwksKeys } from './jwksKeys.js';
import { type OAuthGrant, skillsFromGrants } from './oauthGrants.js';

/** Options of createOAuthVerifier (from auth.oauth, secrets already read from the environment). */
export interface OAuthVerifierOptions {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUri: string | undefined;
  readonly principalClaim: string;
  readonly grants: readonly OAuthGrant[];
  readonly introspection?: {
    readonly endpoint: string;
    readonly clientId: string;
    readonly clientSecret: string;
  };
  /** Verified tokens remembered until they expire (and refused ones briefly); past this many the oldest goes. */
  readonly maxCachedTokens?: number;
  /** Least time between two key-set fetches caused by an unknown key id (default 30 s). */
  readonly refetchIntervalMs?: number;
  /** Deadline of each request to the authorization server (default 5 s). */
  readonly fetchTimeoutMs?: number;
  /** Called when metadata or keys could not be fetched (the cached keys keep serving). */
  readonly onFetchFailed?: (error: unknown) => void;
  readonly now?: () => number;
}

/** A token the verifier accepted: who it names and what it may do. */
export interface VerifiedToken {
  readonly principal: Principal;
  readonly scopes: readonly string[];
  readonly clientId: string;
  /** Seconds since the epoch. */
  readonly expiresAt: number;
  /** Milliseconds since the epoch after which the token is refused (its expiry plus the clock skew allowed). */
  readonly validUntil: number;
}

/**
 * Called before the one request to the authorization server (an introspection, a key-set fetch) that
 * checking a token would start; it throws to refuse the token instead (the failed-attempt budget). Checks
 * answered from memory or from the cached keys never call it.
 */
export type BeforeServerCall = () => void;

/** Verifies access tokens of one issuer for one audience (docs/auth.md). */
export interface OAuthVerifier extends OAuthTokenVerifier {
  /**
   * The token's principal and scopes, or throws UNAUTHORIZED with a short reason (never the token), or what
   * beforeServerCall threw.
   */
  verify(token: string, beforeServerCall?: BeforeServerCall): Promise<VerifiedToken>;
  /** Fetches metadata and keys now, so the first request does not wait for them. */
  warmUp(): Promise<void>;
}

/** Clock skew allowed on exp and nbf, in seconds. */
const CLOCK_SKEW_SECONDS = 60;

// Asymmetric signatures only: an HMAC "key" would be the public key's bytes, and `none` is no signature.
const ALGORITHMS: JWSAlgorithm[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

// Opaque tokens cannot say when they end unless introspection does: remembered this long at most.
const OPAQUE_CACHE_SECONDS = 60;
// A refused token is refused again from memory this long: a client retrying one bad token costs no
// introspection and no signature check. Short, so a token that becomes valid (a new key) soon works.
const REFUSED_CACHE_SECONDS = 30;
// The refusal that says the authorization server could not be asked: not the token's fault, not remembered.
const NOT_CHECKED = 'token could not be checked';
// A token with a confirmation claim (RFC 7800: DPoP's jkt, mTLS's x5t#S256) may be used only with proof of
// its key, which a Bearer request does not carry: accepting it as a bearer token lets whoever copied it use it.
const BOUND_TOKEN = 'token is bound to a key (cnf); only bearer tokens are accepted';
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]*$/;

const reject = (reason: string, cause?: unknown): GatewayError =>
  new GatewayError('UNAUTHORIZED', reason, cause === undefined ? undefined : { cause });

// What a jose failure means to the client: short, fixed texts (they end up in error_description).
function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'token expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return 'token not issued for this resource';
    if (error.claim === 'iss') return 'token from another issuer';
    if (error.claim === 'nbf') return 'token not yet valid';
    return `token claim ${error.claim} invalid`;
  }
  if (error instanceof errors.JWKSNoMatchingKey) return 'token signed by an unknown key';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'token algorithm not allowed';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'token signature invalid';
  return 'malformed token';
}

const scopesOf = (claims: Readonly<Record<string, unknown>>): readonly string[] => {
  if (typeof claims.scope === 'string') return claims.scope.split(' ').filter((s) => s !== '');
  // Some providers (Azure AD, Okta) put scopes in an `scp` array.
  if (Array.isArray(claims.scp)) return claims.scp.filter((s): s is string => typeof s === 'string');
  return [];
};

const shortHash = (text: string, length: number): string =>
  createHash('sha256').update(text).digest('hex').slice(0, length);

interface CacheEntry {
  readonly verified: VerifiedToken;
  /** Milliseconds since the epoch after which the entry is not used. */
  readonly until: number;
}

/** Makes room in a bounded map: expired entries first; if none, the oldest (Map order is insertion order). */
function makeRoomIn(map: Map<string, { readonly until: number }>, max: number, t: number): void {
  if (map.size < max) return;
  for (const [k, entry] of map) if (entry.until <= t) map.delete(k);
  const oldest = map.keys().next();
  if (map.size >= max && oldest.done !== true) map.delete(oldest.value);
}

/** A map's entry for key while it is still valid at t; an expired one is deleted. */
function freshIn<T extends { readonly until: number }>(
  map: Map<string, T>,
  key: string,
  t: number,
): T | undefined {
  const entry = map.get(key);
  if (entry === undefined || entry.until > t) return entry;
  map.delete(key);
  return undefined;
}

/**
 * Builds the verifier: JWTs against the issuer's keys (docs/auth.md, "Verification"), opaque tokens by
 * introspection when configured. Every accepted token is remembered, keyed by its hash, until it expires.
 */
export function createOAuthVerifier(options: OAuthVerifierOptions): OAuthVerifier {
  const now = options.now ?? Date.now;
  const timeoutMs = options.fetchTimeoutMs ?? 5000;
  const maxCached = options.maxCachedTokens ?? 10_000;
  const issuerHash = shortHash(options.issuer, 8);
  const cache = new Map<string, CacheEntry>();
  const refused = new Map<string, { readonly error: GatewayError; readonly until: number }>();
  const keyOf = (token: string) => createHash('sha256').update(token).digest('base64');

  let metadata: Promise<IssuerMetadata> | undefined;
  const discover = (): Promise<IssuerMetadata> => {
    metadata ??= discoverIssuer(options.issuer, timeoutMs).catch((error: unknown) => {
      metadata = undefined; // retried on the next fetch (which the key cache rate-limits)
      throw error;
    });
    return metadata;
  };
  const keys = createJwksKeys({
    jwksUri: async () => {
      if (options.jwksUri !== undefined) return options.jwksUri;
      const found = (await discover()).jwksUri;
      if (found === undefined) throw new Error(`issuer ${options.issuer} publishes no jwks_uri`);
      return found;
    },
    refetchIntervalMs: options.refetchIntervalMs ?? 30_000,
    retryIntervalMs: 2000,
    maxAgeMs: 10 * 60_000,
    timeoutMs,
    onFetchFailed: options.onFetchFailed,
    now,
  });

  const principalOf = (claims: Readonly<Record<string, unknown>>, scopes: readonly string[]): Principal => {
    const value = claims[options.principalClaim];
    const name = typeof value === 'number' ? String(value) : value;
    if (typeof name !== 'string' || name === '' || name.length > 256) {
      throw reject(`token has no ${options.principalClaim} claim`);
    }
    const skills = skillsFromGrants(options.grants, scopes, claims);
    // Issuer and grant set are part of the id: no static token (`token:`) or other issuer shares it, and a
    // token of the same subject with other grants never finds the sessions or cached views of this one.
    const id = `oauth:${issuerHash}:${shortHash(skills.join('\n'), 12)}:${name}`;
    // Budgets follow the subject, not the grant set: a client asking for tokens with other scope subsets must
    // not get a new rate-limit bucket (and new stream and slot caps) with each.
    return Object.freeze({
      id,
      name,
      skills,
      budgetId: `oauth:${issuerHash}:${name}`,
      // Connected accounts follow the person (issuer and subject), never a grant set or a session.
      credentialOwner: `oauth:${options.issuer}#${name}`,
    });
  };

  const verifyJwt = async (
    token: string,
    beforeServerCall: BeforeServerCall | undefined,
  ): Promise<{ verified: VerifiedToken; until: number }> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header, jws) => keys.getKey(header, jws, beforeServerCall), {
        issuer: options.issuer,
        audience: options.audience,
        clockTolerance: CLOCK_SKEW_SECONDS,
        algorithms: ALGORITHMS,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      if (error instanceof GatewayError) throw error; // beforeServerCall refused the key-set fetch
      throw reject(reasonOf(error), error);
    }
    if (payload.cnf !== undefined) throw reject(BOUND_TOKEN);
    const scopes = scopesOf(payload);
    const expiresAt = payload.exp ?? 0;
    const clientId =
      typeof payload.client_id === 'string'
        ? payload.client_id
        : typeof payload.azp === 'string'
          ? payload.azp
          : '';
    return {
      verified: {
        principal: principalOf(payload, scopes),
        scopes,
        clientId,
        expiresAt,
        validUntil: (expiresAt + CLOCK_SKEW_SECONDS) * 1000,
      },
      until: (expiresAt + CLOCK_SKEW_SECONDS) * 1000,
    };
  };

  const verifyOpaque = async (
    token: string,
    beforeServerCall: BeforeServerCall | undefined,
  ): Promise<{ verified: VerifiedToken; until: number }> => {
    const introspection = options.introspection;
    if (introspection === undefined) throw reject('malformed token');
    beforeServerCall?.();
    let answer: Awaited<ReturnType<typeof introspectToken>>;
    try {
      answer = await introspectToken(token, { ...introspection, timeoutMs });
    } catch (error) {
      options.onFetchFailed?.(error);
      throw reject(NOT_CHECKED, error);
    }
    const seconds = now() / 1000;
    if (!answer.active) throw reject('token not active');
    if (answer.cnf !== undefined) throw reject(BOUND_TOKEN);
    if (answer.iss !== undefined && answer.iss !== options.issuer) throw reject('token from another issuer');
    const audiences = typeof answer.aud === 'string' ? [answer.aud] : (answer.aud ?? []);
    if (!audiences.includes(options.audience)) throw reject('token not issued for this resource');
    if (answer.exp !== undefined && answer.exp + CLOCK_SKEW_SECONDS < seconds) throw reject('token expired');
    if (answer.nbf !== undefined && answer.nbf - CLOCK_SKEW_SECONDS > seconds)
      throw reject('token not yet valid');
    const scopes = scopesOf(answer);
    const expiresAt = answer.exp ?? Math.floor(seconds) + OPAQUE_CACHE_SECONDS;
    const clientId = typeof answer.client_id === 'string' ? answer.client_id : '';
    return {
      verified: {
        principal: principalOf(answer, scopes),
        scopes,
        clientId,
        expiresAt,
        validUntil: (expiresAt + CLOCK_SKEW_SECONDS) * 1000,
      },
      until: Math.min(expiresAt + CLOCK_SKEW_SECONDS, Math.floor(seconds) + OPAQUE_CACHE_SECONDS) * 1000,
    };
  };

  const makeRoom = (map: Map<string, { readonly until: number }>) => makeRoomIn(map, maxCached, now());
  const fresh = <T extends { readonly until: number }>(map: Map<string, T>, key: string): T | undefined =>
    freshIn(map, key, now());

  // Checks under way by token hash: the same new token sent by many requests at once is checked once.
  const checking = new Map<string, Promise<VerifiedToken>>();

  const verifyNew = async (
    token: string,
    key: string,
    beforeServerCall: BeforeServerCall | undefined,
  ): Promise<VerifiedToken> => {
    let checked: { verified: VerifiedToken; until: number };
    try {
      checked = JWT_SHAPE.test(token)
        ? await verifyJwt(token, beforeServerCall)
        : await verifyOpaque(token, beforeServerCall);
    } catch (error) {
      // Only the token's own refusals are remembered: not an unreachable server, not a refused server call.
      if (error instanceof GatewayError && error.code === 'UNAUTHORIZED' && error.message !== NOT_CHECKED) {
        makeRoom(refused);
        refused.set(key, { error, until: now() + REFUSED_CACHE_SECONDS * 1000 });
      }
      throw error;
    }
    makeRoom(cache);
    cache.set(key, checked);
    return checked.verified;
  };

  const verify = (token: string, beforeServerCall?: BeforeServerCall): Promise<VerifiedToken> => {
    const key = keyOf(token);
    const cached = fresh(cache, key);
    if (cached !== undefined) return Promise.resolve(cached.verified);
    const remembered = fresh(refused, key);
    if (remembered !== undefined) return Promise.reject(remembered.error);
    const pending = checking.get(key);
    if (pending !== undefined) {
      // The check joined was refused its server call (another caller's budget): this caller asks with its own.
      return pending.catch((error: unknown) => {
        if (error instanceof GatewayError && error.code !== 'UNAUTHORIZED')
          return verify(token, beforeServerCall);
        throw error;
      });
    }
    const check = verifyNew(token, key, beforeServerCall).finally(() => checking.delete(key));
    checking.set(key, check);
    return check;
  };

  return {
    verify,
    async verifyAccessToken(token): Promise<AuthInfo> {
      const verified = await verify(token);
      return {
        token,
        clientId: verified.clientId,
        scopes: [...verified.scopes],
        expiresAt: verified.expiresAt,
        extra: { principal: verified.principal },
      };
    },
    async warmUp() {
      await keys.warmUp();
    },
  };
}
