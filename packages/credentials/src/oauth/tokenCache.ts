/** Refresh this long before a token's `exp`: a call must not reach the upstream with a token about to lapse. */
export const EXPIRY_MARGIN_MS = 60_000;
/** A token whose lifetime the server did not say is kept this long. */
const UNKNOWN_LIFETIME_MS = 5 * 60_000;
const MAX_ENTRIES = 10_000;

/** A fetched access token and when to stop using it. */
export interface CachedToken {
  readonly accessToken: string;
  /** Epoch ms after which it is fetched again (exp minus the margin). */
  readonly renewAt: number;
}

/**
 * When a token with `expires_in` seconds of life, fetched at `now`, is fetched again: 60 s before it expires,
 * or half-way through a life shorter than two minutes (else every call would fetch one).
 */
export const renewAtOf = (now: number, expiresIn: number | undefined): number => {
  if (expiresIn === undefined) return now + UNKNOWN_LIFETIME_MS;
  const lifeMs = expiresIn * 1000;
  return now + Math.max(lifeMs - EXPIRY_MARGIN_MS, lifeMs / 2);
};

/**
 * Tokens by key, each fetched by one request however many callers wait for it (single flight), kept until
 * renewAt, bounded (the oldest dropped first).
 */
export interface TokenCache {
  get(key: string, fetch: () => Promise<CachedToken>): Promise<string>;
  /** Drops the key's token if it is still `accessToken` (one 401 must not drop a newer token). */
  invalidate(key: string, accessToken?: string): void;
  /** Drops every token whose key starts with `prefix`. */
  invalidatePrefix(prefix: string): void;
}

/** A TokenCache on the given clock. */
export function createTokenCache(now: () => number = Date.now): TokenCache {
  const tokens = new Map<string, CachedToken>();
  const inFlight = new Map<string, Promise<CachedToken>>();
  return {
    async get(key, fetch) {
      const cached = tokens.get(key);
      if (cached !== undefined && cached.renewAt > now()) return cached.accessToken;
      let flight = inFlight.get(key);
      if (flight === undefined) {
        flight = fetch().finally(() => inFlight.delete(key));
        inFlight.set(key, flight);
        flight.then(
          (token) => {
            tokens.delete(key);
            if (tokens.size >= MAX_ENTRIES) {
              const oldest = tokens.keys().next().value;
              if (oldest !== undefined) tokens.delete(oldest);
            }
            tokens.set(key, token);
          },
          () => undefined,
        );
      }
      return (await flight).accessToken;
    },
    invalidate(key, accessToken) {
      const cached = tokens.get(key);
      if (cached !== undefined && (accessToken === undefined || cached.accessToken === accessToken))
        tokens.delete(key);
    },
    invalidatePrefix(prefix) {
      for (const key of tokens.keys()) if (key.startsWith(prefix)) tokens.delete(key);
    },
  };
}
