import { ConfigError } from '@skillgate/config';
import type { OAuthResource } from '../auth/bearerAuth.js';
import { createOAuthVerifier } from '../auth/oauthVerifier.js';
import type { OAuthSettings } from './authSettings.js';

/** Options of createOAuthResource. */
export interface OAuthResourceOptions {
  /** `auth.oauth` as settings, or undefined without it. */
  readonly oauth: OAuthSettings | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Called when the issuer's metadata, keys or introspection could not be fetched. */
  readonly onFetchFailed: (error: unknown) => void;
  /** Least time between key-set refetches on an unknown kid (default 30 s; tests shorten it). */
  readonly keyRefetchIntervalMs?: number;
}

/**
 * The OAuth resource server of auth.oauth, or undefined without it; an introspection credential whose
 * variable is unset fails the start, naming it.
 */
export function createOAuthResource(options: OAuthResourceOptions): OAuthResource | undefined {
  const { oauth, env } = options;
  if (oauth === undefined) return undefined;
  let introspection: { endpoint: string; clientId: string; clientSecret: string } | undefined;
  if (oauth.introspection !== undefined) {
    const { endpoint, clientIdEnv, clientSecretEnv } = oauth.introspection;
    const unset = [clientIdEnv, clientSecretEnv].filter((name) => (env[name] ?? '') === '');
    if (unset.length > 0) {
      const message = `environment variable ${unset.join(' and ')} is not set`;
      throw new ConfigError('CONFIG_INVALID', `auth.oauth.introspection: ${message}`, {
        issues: [{ path: 'auth.oauth.introspection', message }],
      });
    }
    introspection = { endpoint, clientId: env[clientIdEnv] ?? '', clientSecret: env[clientSecretEnv] ?? '' };
  }
  return {
    verifier: createOAuthVerifier({
      issuer: oauth.issuer,
      audience: oauth.audience,
      jwksUri: oauth.jwksUri,
      principalClaim: oauth.principalClaim,
      grants: oauth.grants,
      introspection,
      refetchIntervalMs: options.keyRefetchIntervalMs,
      onFetchFailed: options.onFetchFailed,
    }),
    issuer: oauth.issuer,
    publicUrl: oauth.publicUrl,
    path: oauth.path,
    requiredScopes: oauth.requiredScopes,
    scopesSupported: oauth.scopesSupported,
  };
}
