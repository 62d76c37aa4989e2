import type { SkillgateConfig } from '@skillgate/config';
import type { OAuthGrant } from '../auth/oauthGrants.js';

/** The OAuth resource server of `auth.oauth` (docs/auth.md), before its secrets are read. */
export interface OAuthSettings {
  readonly issuer: string;
  /** `auth.oauth.audience`, else `server.public_url` + `server.path` (RFC 8707). */
  readonly audience: string;
  readonly jwksUri: string | undefined;
  readonly principalClaim: string;
  readonly grants: readonly OAuthGrant[];
  /** Token introspection: the endpoint and the variables holding the client's id and secret. */
  readonly introspection:
    | { readonly endpoint: string; readonly clientIdEnv: string; readonly clientSecretEnv: string }
    | undefined;
  readonly publicUrl: string | undefined;
  readonly path: string;
  readonly requiredScopes: readonly string[];
  /** `scopes_supported`, else `required_scopes` plus every grant scope. */
  readonly scopesSupported: readonly string[];
}

/** Who may call: the static tokens (names and globs, never values), anonymous access and OAuth. */
export interface AuthSettings {
  /** The configured tokens in config order (`auth.tokens`): what the operator page and the CLI can name. */
  readonly tokens: readonly {
    readonly name: string;
    readonly skills: readonly string[];
    readonly admin: boolean;
  }[];
  readonly allowAnonymous: boolean;
  readonly anonymousSkills: readonly string[];
  /** `auth.oauth.failed_attempts_per_minute`; 0 without OAuth. */
  readonly failedAttemptsPerMinute: number;
  readonly oauth: OAuthSettings | undefined;
  /**
   * The variables whose values are secrets: token_env, and OAuth client credentials (kept from scripts and
   * logs like tokens).
   */
  readonly secretEnvNames: readonly string[];
}

function oauthSettings(config: SkillgateConfig): OAuthSettings | undefined {
  const oauth = config.auth.oauth;
  if (oauth === undefined) return undefined;
  const publicUrl = config.server.public_url;
  const grantScopes = oauth.grants.flatMap((grant) => ('scope' in grant ? [grant.scope] : []));
  const introspection = oauth.introspection;
  return {
    issuer: oauth.issuer,
    // The schema refuses auth.oauth without either, so one of the two is there.
    audience: oauth.audience ?? `${publicUrl ?? ''}${config.server.path}`,
    jwksUri: oauth.jwks_uri,
    principalClaim: oauth.principal_claim,
    grants: oauth.grants,
    introspection:
      introspection === undefined
        ? undefined
        : {
            endpoint: introspection.endpoint,
            clientIdEnv: introspection.client_id_env,
            clientSecretEnv: introspection.client_secret_env,
          },
    publicUrl,
    path: config.server.path,
    requiredScopes: oauth.required_scopes,
    scopesSupported:
      oauth.scopes_supported.length > 0
        ? oauth.scopes_supported
        : [...new Set([...oauth.required_scopes, ...grantScopes])],
  };
}

/** The `auth` section (and the server fields OAuth derives from) as settings. */
export function authSettings(config: SkillgateConfig): AuthSettings {
  const { auth } = config;
  const introspection = auth.oauth?.introspection;
  return {
    tokens: auth.tokens.map((t) => ({ name: t.name, skills: t.skills, admin: t.admin })),
    allowAnonymous: auth.allow_anonymous,
    anonymousSkills: auth.anonymous_skills,
    failedAttemptsPerMinute: auth.oauth?.failed_attempts_per_minute ?? 0,
    oauth: oauthSettings(config),
    secretEnvNames: [
      ...auth.tokens.flatMap((t) => (t.token_env === undefined ? [] : [t.token_env])),
      ...(introspection === undefined ? [] : [introspection.client_id_env, introspection.client_secret_env]),
    ],
  };
}
