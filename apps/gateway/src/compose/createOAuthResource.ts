import { ConfigError, type SkillgateConfig } from '@skillgate/config';
import type { OAuthResource } from '../auth/bearerAuth.js';
import { createOAuthVerifier } from '../auth/oauthVerifier.js';

/** Options of createOAuthResource. */
export interface OAuthResourceOptions {
  readonly config: SkillgateConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Called when the issuer's metadata, keys or introspection could not be fetched. */
  readonly onFetchFailed: (error: unknown) => void;
  /** Least time between key-set refetches on an unknown kid (default 30 s; tests shorten it). */
  readonly keyRefetchIntervalMs?: number;
}

/** The environment variables auth.oauth reads secrets from (kept from scripts and logs like tokens). */
export function oauthSecretEnvNames(config: SkillgateConfig): readonly string[] {
  const introspection = config.auth.oauth?.introspection;
  return introspection === undefined ? [] : [introspection.client_id_env, introspection.client_secret_env];
}

/**
 * The OAuth resource server of auth.oauth, or undefined without it: the audience defaults to
 * server.public_url + server.path (RFC 8707), scopes_supported to required_scopes plus every grant scope.
 */
export function createOAuthResource(options: OAuthResourceOptions): OAuthResource | undefined {
  const { config, env } = options;
  const oauth = config.auth.oauth;
  if (oauth === undefined) return undefined;
  const publicUrl = config.server.public_url;
  // The schema refuses auth.oauth without either, so one of the two is there.
  const audience = oauth.audience ?? `${publicUrl ?? ''}${config.server.path}`;
  let introspection: { endpoint: string; clientId: string; clientSecret: string } | undefined;
  if (oauth.introspection !== undefined) {
    const { endpoint, client_id_env, client_secret_env } = oauth.introspection;
    const unset = [client_id_env, client_secret_env].filter((name) => (env[name] ?? '') === '');
    if (unset.length > 0) {
      const message = `environment variable ${unset.join(' and ')} is not set`;
      throw new ConfigError('CONFIG_INVALID', `auth.oauth.introspection: ${message}`, {
        issues: [{ path: 'auth.oauth.introspection', message }],
      });
    }
    introspection = {
      endpoint,
      clientId: env[client_id_env] ?? '',
      clientSecret: env[client_secret_env] ?? '',
    };
  }
  const grantScopes = oauth.grants.flatMap((grant) => ('scope' in grant ? [grant.scope] : []));
  const scopesSupported =
    oauth.scopes_supported.length > 0
      ? oauth.scopes_supported
      : [...new Set([...oauth.required_scopes, ...grantScopes])];
  return {
    verifier: createOAuthVerifier({
      issuer: oauth.issuer,
      audience,
      jwksUri: oauth.jwks_uri,
      principalClaim: oauth.principal_claim,
      grants: oauth.grants,
      introspection,
      refetchIntervalMs: options.keyRefetchIntervalMs,
      onFetchFailed: options.onFetchFailed,
    }),
    issuer: oauth.issuer,
    publicUrl,
    path: config.server.path,
    requiredScopes: oauth.required_scopes,
    scopesSupported,
  };
}
