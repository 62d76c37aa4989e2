import {
  createLocalJWKSet,
  errors,
  type FlattenedJWSInput,
  type CryptoKey as JoseCryptoKey,
  type JSONWebKeySet,
  type JWK,
  type JWSHeaderParameters,
} from 'jose';
import { z } from 'zod';
import { fetchJson } from './fetchJson.js';

/** Options of createJwksKeys. */
export interface JwksKeysOptions {
  /** Where the key set is (resolved lazily: it may come from the issuer's metadata). */
  readonly jwksUri: () => Promise<string>;
  /** Least time between two fetches caused by an unknown key id (docs/auth.md: 30 s). */
  readonly refetchIntervalMs: number;
  /** Least time between two attempts while no key set was ever loaded. */
  readonly retryIntervalMs: number;
  /** Age after which the set is refreshed in the background (the old one serves meanwhile). */
  readonly maxAgeMs: number;
  readonly timeoutMs: number;
  /** Called when a fetch fails (the cached keys keep serving). */
  readonly onFetchFailed?: (error: unknown) => void;
  readonly now?: () => number;
}

/** The issuer's signing keys, cached: what jose's jwtVerify asks for a key. */
export interface JwksKeys {
  /**
   * The key for a token's header, refetching the set (rate-limited) when its kid is unknown. `beforeFetch`
   * is called before a fetch this call would start (not one it joins); what it throws refuses the token.
   */
  getKey(
    header: JWSHeaderParameters,
    token: FlattenedJWSInput,
    beforeFetch?: () => void,
  ): Promise<JoseCryptoKey>;
  /** Loads the set now (at start-up), so the first token does not wait; failures are reported, not thrown. */
  warmUp(): Promise<void>;
}

const jwksSchema = z.object({ keys: z.array(z.looseObject({ kty: z.string() })).max(256) });

/**
 * A JWKS cache with the refetch rules of docs/auth.md: an unknown kid refetches at most once per
 * refetchIntervalMs; a failed fetch keeps the keys already held (a JWKS outage never blocks tokens whose
 * key is cached); concurrent misses share one fetch. Symmetric (`oct`) keys are dropped on load: a public
 * key set holds none, and one that did would let HMAC tokens be forged with a public value.
 */
export function createJwksKeys(options: JwksKeysOptions): JwksKeys {
  const now = options.now ?? Date.now;
  let local: ReturnType<typeof createLocalJWKSet> | undefined;
  let fetchedAt = 0;
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<void> | undefined;

  const load = (): Promise<void> => {
    if (inFlight !== undefined) return inFlight;
    lastAttempt = now();
    inFlight = (async () => {
      const uri = await options.jwksUri();
      const parsed = jwksSchema.parse(
        await fetchJson(uri, { timeoutMs: options.timeoutMs, maxBytes: 512 * 1024 }),
      );
      const keys = parsed.keys.filter((key) => key.kty !== 'oct') as JWK[];
      local = createLocalJWKSet({ keys } as JSONWebKeySet);
      fetchedAt = now();
    })().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const tryLoad = async (): Promise<boolean> => {
    try {
      await load();
      return true;
    } catch (error) {
      options.onFetchFailed?.(error);
      return false;
    }
  };

  // A fetch this token would start costs the authorization server a request: its caller may refuse it first
  // (the failed-attempt budget); joining one already under way costs nothing.
  const fetchFor = (beforeFetch: (() => void) | undefined): Promise<boolean> => {
    if (inFlight === undefined) beforeFetch?.();
    return tryLoad();
  };

  return {
    async getKey(header, token, beforeFetch) {
      if (local === undefined) {
        if (inFlight === undefined && now() - lastAttempt < options.retryIntervalMs) {
          throw new errors.JWKSNoMatchingKey('the signing keys could not be fetched');
        }
        await fetchFor(beforeFetch);
      } else if (now() - fetchedAt > options.maxAgeMs && now() - lastAttempt >= options.refetchIntervalMs) {
        void tryLoad();
      }
      const keys = local;
      if (keys === undefined) throw new errors.JWKSNoMatchingKey('the signing keys could not be fetched');
      try {
        return await keys(header, token);
      } catch (error) {
        if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
        // A new kid is how a rotation shows: refetch, but not more than once per interval.
        if (inFlight === undefined && now() - lastAttempt < options.refetchIntervalMs) throw error;
        if (!(await fetchFor(beforeFetch)) || local === undefined) throw error;
        return local(header, token);
      }
    },
    async warmUp() {
      await tryLoad();
    },
  };
}
