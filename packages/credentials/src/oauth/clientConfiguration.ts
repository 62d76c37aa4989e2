import {
  allowInsecureRequests,
  ClientSecretBasic,
  ClientSecretPost,
  Configuration,
  discovery,
  type ServerMetadata,
} from 'openid-client';
import { CredentialsError } from '../credentialsError.js';
import type { ClientSettings } from '../settings.js';
import { assertSecureEndpoint, isLoopbackHttp } from './secureEndpoint.js';

/** Seconds one request to an authorization server may take (discovery, token, revocation). */
const REQUEST_TIMEOUT_SECONDS = 10;

/** Where an authorization server is: its issuer (metadata discovered), or endpoints given outright. */
export interface ServerSettings {
  readonly issuer?: string;
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  readonly revocationEndpoint?: string;
}

/** Options of createClientConfiguration. */
export interface ClientConfigurationOptions {
  /** What the client is for (a provider or upstream id), for errors. */
  readonly name: string;
  readonly server: ServerSettings;
  readonly client: ClientSettings;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** openid-client's Configuration for one client at one server, discovered once (again after a failure). */
export type ClientConfiguration = () => Promise<Configuration>;

/** The value of a variable the config names, or ENV_NOT_SET naming the variable (never its value). */
export function envValue(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  what: string,
): string {
  const value = env[name];
  if (value === undefined || value === '') {
    throw new CredentialsError('ENV_NOT_SET', `${what}: environment variable ${name} is not set`);
  }
  return value;
}

/**
 * A client of an authorization server. Metadata comes from RFC 8414 (/.well-known/oauth-authorization-server)
 * and else OpenID Connect discovery, with its issuer checked by openid-client; every endpoint used, discovered
 * or configured, must be https:// (loopback http:// aside), and openid-client's allowInsecureRequests is set
 * only when the server is on loopback. openid-client never follows redirects (redirect: 'manual').
 */
export function createClientConfiguration(options: ClientConfigurationOptions): ClientConfiguration {
  const { name, server, client, env } = options;
  let pending: Promise<Configuration> | undefined;

  const build = async (): Promise<Configuration> => {
    const clientId = envValue(env, client.clientIdEnv, `client id of ${name}`);
    const secret = envValue(env, client.clientSecretEnv, `client secret of ${name}`);
    const auth =
      client.tokenEndpointAuthMethod === 'client_secret_post'
        ? ClientSecretPost(secret)
        : ClientSecretBasic(secret);
    let config: Configuration;
    if (server.issuer !== undefined) {
      const issuer = assertSecureEndpoint(server.issuer, 'issuer', name);
      const execute = isLoopbackHttp(server.issuer) ? [allowInsecureRequests] : [];
      const discover = (algorithm: 'oauth2' | 'oidc') =>
        discovery(issuer, clientId, undefined, auth, {
          algorithm,
          execute,
          timeout: REQUEST_TIMEOUT_SECONDS,
        });
      try {
        config = await discover('oauth2').catch(() => discover('oidc'));
      } catch (error) {
        throw new CredentialsError(
          'PROVIDER_UNAVAILABLE',
          `metadata of ${name} could not be read from its issuer`,
          {
            cause: error,
            provider: name,
          },
        );
      }
    } else {
      const tokenEndpoint = server.tokenEndpoint;
      if (tokenEndpoint === undefined)
        throw new CredentialsError('PROVIDER_UNAVAILABLE', `${name} has no token endpoint`, {
          provider: name,
        });
      const metadata: ServerMetadata = {
        // No issuer to discover: the token endpoint's origin stands for it (a provider that sends `iss` in its
        // redirect needs `issuer` configured, so that it can be checked).
        issuer: new URL(tokenEndpoint).origin,
        token_endpoint: tokenEndpoint,
        ...(server.authorizationEndpoint === undefined
          ? {}
          : { authorization_endpoint: server.authorizationEndpoint }),
      };
      config = new Configuration(metadata, clientId, undefined, auth);
      config.timeout = REQUEST_TIMEOUT_SECONDS;
      if (isLoopbackHttp(tokenEndpoint)) allowInsecureRequests(config);
    }
    const { supportsPKCE: _helper, ...metadata } = config.serverMetadata();
    for (const [what, url] of [
      ['token endpoint', metadata.token_endpoint],
      ['authorization endpoint', metadata.authorization_endpoint],
      ['revocation endpoint', server.revocationEndpoint ?? metadata.revocation_endpoint],
    ] as const) {
      if (url !== undefined) assertSecureEndpoint(url, what, name);
    }
    if (
      server.revocationEndpoint !== undefined &&
      metadata.revocation_endpoint !== server.revocationEndpoint
    ) {
      // The configured endpoint wins over (or stands in for) the metadata's.
      config = new Configuration(
        { ...metadata, revocation_endpoint: server.revocationEndpoint },
        clientId,
        undefined,
        auth,
      );
      config.timeout = REQUEST_TIMEOUT_SECONDS;
      if (isLoopbackHttp(server.revocationEndpoint) || isLoopbackHttp(metadata.token_endpoint ?? ''))
        allowInsecureRequests(config);
    }
    return config;
  };

  return () => {
    pending ??= build().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
