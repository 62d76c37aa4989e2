import type { Configuration } from 'openid-client';
import { CredentialsError } from '../credentialsError.js';
import type { ClientCredentialsSettings, CredentialsSettings, OAuthProviderSettings } from '../settings.js';
import { type ClientConfiguration, createClientConfiguration } from './clientConfiguration.js';

/** openid-client configurations by what they are for, each discovered once. */
export interface ClientConfigurations {
  /** A provider principals connect to. */
  provider(provider: OAuthProviderSettings): Promise<Configuration>;
  /** A token endpoint the gateway asks as itself (client credentials, token exchange), by a key of its own. */
  tokenEndpoint(key: string, name: string, client: ClientCredentialsSettings): Promise<Configuration>;
  /** The connect page's sign-in at auth.oauth.issuer; FLOW_INVALID when it is not configured. */
  login(): Promise<Configuration>;
}

/** The configurations of one credentials service. */
export function createClientConfigurations(
  env: Readonly<Record<string, string | undefined>>,
  login: CredentialsSettings['login'],
): ClientConfigurations {
  const configurations = new Map<string, ClientConfiguration>();
  const of = (key: string, make: () => ClientConfiguration): Promise<Configuration> => {
    let config = configurations.get(key);
    if (config === undefined) {
      config = make();
      configurations.set(key, config);
    }
    return config();
  };
  return {
    provider: (provider) =>
      of(`provider:${provider.id}`, () =>
        createClientConfiguration({
          name: provider.id,
          server: {
            ...(provider.issuer === undefined ? {} : { issuer: provider.issuer }),
            ...(provider.authorizationEndpoint === undefined
              ? {}
              : { authorizationEndpoint: provider.authorizationEndpoint }),
            ...(provider.tokenEndpoint === undefined ? {} : { tokenEndpoint: provider.tokenEndpoint }),
            ...(provider.revocationEndpoint === undefined
              ? {}
              : { revocationEndpoint: provider.revocationEndpoint }),
          },
          client: provider,
          env,
        }),
      ),
    tokenEndpoint: (key, name, client) =>
      of(`token:${key}`, () =>
        createClientConfiguration({ name, server: { tokenEndpoint: client.tokenEndpoint }, client, env }),
      ),
    login: async () => {
      if (login === undefined) {
        throw new CredentialsError('FLOW_INVALID', 'credentials.connect.login is not configured');
      }
      return of('login', () =>
        createClientConfiguration({
          name: 'connect login',
          server: { issuer: login.issuer },
          client: login,
          env,
        }),
      );
    },
  };
}
