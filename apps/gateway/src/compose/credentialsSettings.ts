import type { SkillgateConfig, UpstreamConfig } from '@skillgate/config';
import type {
  ClientCredentialsSettings,
  CredentialsSettings,
  ProviderSettings,
  UpstreamAuth,
} from '@skillgate/credentials';

type Auth = NonNullable<UpstreamConfig['auth']>;
type ClientCredentialsConfig = NonNullable<Auth['client_credentials']>;

// The resource sent is the audience, else the upstream's URL, unless send_resource is off.
const clientCredentials = (c: ClientCredentialsConfig, upstreamUrl: string): ClientCredentialsSettings => {
  return {
    tokenEndpoint: c.token_endpoint,
    clientIdEnv: c.client_id_env,
    clientSecretEnv: c.client_secret_env,
    tokenEndpointAuthMethod: c.token_endpoint_auth_method,
    scopes: c.scopes,
    ...(c.audience === undefined ? {} : { audience: c.audience }),
    ...(c.send_resource ? { resource: c.audience ?? upstreamUrl } : {}),
  };
};

const upstreamAuth = (u: UpstreamConfig): UpstreamAuth | undefined => {
  const { auth, url } = u;
  if (auth === undefined || url === undefined) return undefined;
  const discovery =
    auth.discovery?.headers_from_env !== undefined
      ? ({ kind: 'headers', headersFromEnv: auth.discovery.headers_from_env } as const)
      : auth.discovery?.client_credentials !== undefined
        ? ({
            kind: 'client_credentials',
            client: clientCredentials(auth.discovery.client_credentials, url),
          } as const)
        : undefined;
  const common = { upstream: u.id, ...(discovery === undefined ? {} : { discovery }) };
  if (auth.provider !== undefined) {
    return {
      ...common,
      kind: 'provider',
      provider: auth.provider,
      ...(auth.header === undefined ? {} : { header: auth.header }),
    };
  }
  if (auth.client_credentials !== undefined) {
    return {
      ...common,
      kind: 'client_credentials',
      client: clientCredentials(auth.client_credentials, url),
    };
  }
  const x = auth.token_exchange;
  if (x === undefined) return undefined;
  const audience = x.audience ?? url;
  return {
    ...common,
    kind: 'token_exchange',
    exchange: {
      tokenEndpoint: x.token_endpoint,
      clientIdEnv: x.client_id_env,
      clientSecretEnv: x.client_secret_env,
      tokenEndpointAuthMethod: x.token_endpoint_auth_method,
      scopes: x.scopes,
      audience,
      ...(x.send_resource ? { resource: audience } : {}),
      staticPrincipals: x.static_principals,
    },
  };
};

const provider = (p: SkillgateConfig['credentials']['providers'][number]): ProviderSettings => {
  if (p.oauth === undefined) return { id: p.id, kind: 'secret', label: p.secret?.label ?? p.id };
  const o = p.oauth;
  return {
    id: p.id,
    kind: 'oauth',
    ...(o.issuer === undefined ? {} : { issuer: o.issuer }),
    ...(o.authorization_endpoint === undefined ? {} : { authorizationEndpoint: o.authorization_endpoint }),
    ...(o.token_endpoint === undefined ? {} : { tokenEndpoint: o.token_endpoint }),
    ...(o.revocation_endpoint === undefined ? {} : { revocationEndpoint: o.revocation_endpoint }),
    clientIdEnv: o.client_id_env,
    clientSecretEnv: o.client_secret_env,
    tokenEndpointAuthMethod: o.token_endpoint_auth_method,
    scopes: o.scopes,
    ...(o.resource === undefined ? {} : { resource: o.resource }),
  };
};

/**
 * The `credentials` section with the upstreams' `auth` and `scripts.credentials` (docs/credentials.md), or
 * undefined when nothing is configured per principal or as the gateway's own identity.
 */
export function credentialsSettings(config: SkillgateConfig): CredentialsSettings | undefined {
  const { credentials } = config;
  const upstreams = config.upstreams.map(upstreamAuth).filter((a): a is UpstreamAuth => a !== undefined);
  if (
    credentials.providers.length === 0 &&
    upstreams.length === 0 &&
    config.scripts.credentials.length === 0
  ) {
    return undefined;
  }
  const publicUrl = credentials.connect.public_url ?? config.server.public_url;
  const login = credentials.connect.login;
  const issuer = config.auth.oauth?.issuer;
  return {
    store:
      credentials.store === 'auto'
        ? config.state.backend === 'redis'
          ? 'redis'
          : 'file'
        : credentials.store,
    ...(credentials.file === undefined ? {} : { file: credentials.file }),
    keys: credentials.keys,
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(login === undefined || issuer === undefined
      ? {}
      : {
          login: {
            issuer,
            clientIdEnv: login.client_id_env,
            clientSecretEnv: login.client_secret_env,
            tokenEndpointAuthMethod: 'client_secret_basic',
          },
        }),
    providers: credentials.providers.map(provider),
    upstreams,
    scripts: config.scripts.credentials,
  };
}

/**
 * The variables of the credentials settings whose values are secrets: keys, client ids and secrets, discovery
 * headers (kept from scripts, stdio upstreams and logs like tokens).
 */
export function credentialSecretEnvNames(settings: CredentialsSettings | undefined): readonly string[] {
  if (settings === undefined) return [];
  const client = (c: { readonly clientIdEnv: string; readonly clientSecretEnv: string }) => [
    c.clientIdEnv,
    c.clientSecretEnv,
  ];
  return [
    ...settings.keys.flatMap((k) => (k.env === undefined ? [] : [k.env])),
    ...(settings.login === undefined ? [] : client(settings.login)),
    ...settings.providers.flatMap((p) => (p.kind === 'oauth' ? client(p) : [])),
    ...settings.upstreams.flatMap((u) => [
      ...(u.kind === 'client_credentials'
        ? client(u.client)
        : u.kind === 'token_exchange'
          ? client(u.exchange)
          : []),
      ...(u.discovery?.kind === 'client_credentials' ? client(u.discovery.client) : []),
      ...(u.discovery?.kind === 'headers' ? Object.values(u.discovery.headersFromEnv) : []),
    ]),
  ];
}
