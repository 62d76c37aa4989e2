/** How the gateway authenticates at a token endpoint (RFC 6749 §2.3.1). */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post';

/** A client at a token endpoint: its id and secret come from the gateway's environment. */
export interface ClientSettings {
  /** Environment variable holding the client id. */
  readonly clientIdEnv: string;
  /** Environment variable holding the client secret. */
  readonly clientSecretEnv: string;
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
}

/** A provider whose account a principal connects by OAuth authorization code + PKCE. */
export interface OAuthProviderSettings extends ClientSettings {
  readonly id: string;
  readonly kind: 'oauth';
  /** Endpoints from its RFC 8414 / OpenID Connect metadata; else the two explicit endpoints. */
  readonly issuer?: string;
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  /** RFC 7009 revocation endpoint when the metadata names none. */
  readonly revocationEndpoint?: string;
  readonly scopes: readonly string[];
  /** RFC 8707 resource asked for, or undefined. */
  readonly resource?: string;
}

/** A provider whose credential is a secret the principal types on the connect page. */
export interface SecretProviderSettings {
  readonly id: string;
  readonly kind: 'secret';
  /** What the page asks for ("ACME API key"). */
  readonly label: string;
}

/** One entry of `credentials.providers`. */
export type ProviderSettings = OAuthProviderSettings | SecretProviderSettings;

/** A client-credentials token the gateway asks for as itself. */
export interface ClientCredentialsSettings extends ClientSettings {
  readonly tokenEndpoint: string;
  readonly scopes: readonly string[];
  /** Sent as `audience`, or undefined. */
  readonly audience?: string;
  /** Sent as RFC 8707 `resource`, or undefined (`send_resource: false`). */
  readonly resource?: string;
}

/** An RFC 8693 token exchange: the caller's OAuth access token for one whose audience is the upstream. */
export interface TokenExchangeSettings extends ClientSettings {
  readonly tokenEndpoint: string;
  readonly scopes: readonly string[];
  /** The audience asked for (default the upstream's URL, resolved by the settings reader). */
  readonly audience: string;
  /** Sent as RFC 8707 `resource`, or undefined (`send_resource: false`). */
  readonly resource?: string;
  /** What a principal without an OAuth access token gets. */
  readonly staticPrincipals: 'deny' | 'client_credentials';
}

/** How a per-principal upstream's tools are listed (once, for everyone). */
export type DiscoveryAuth =
  | { readonly kind: 'headers'; readonly headersFromEnv: Readonly<Record<string, string>> }
  | { readonly kind: 'client_credentials'; readonly client: ClientCredentialsSettings };

/** `upstreams[].auth` of one HTTP upstream. */
export type UpstreamAuth = (
  | {
      readonly kind: 'provider';
      readonly provider: string;
      /** The header carrying the credential; undefined: `Authorization: Bearer <token>`. */
      readonly header?: string;
    }
  | { readonly kind: 'token_exchange'; readonly exchange: TokenExchangeSettings }
  | { readonly kind: 'client_credentials'; readonly client: ClientCredentialsSettings }
) & {
  /** The upstream's id. */
  readonly upstream: string;
  /** How its tools are listed; undefined: without a credential, else a connected principal's. */
  readonly discovery?: DiscoveryAuth;
};

/** One entry of `scripts.credentials`: the caller's credential as a script's environment variable. */
export interface ScriptCredential {
  /** Globs of the skills whose scripts get it. */
  readonly skills: readonly string[];
  readonly env: string;
  readonly provider: string;
}

/** One key of the key ring: where its base64 value is. */
export interface KeySettings {
  readonly id: string;
  readonly env?: string;
  readonly file?: string;
}

/** The `credentials` section and what refers to it, as the credentials package's settings. */
export interface CredentialsSettings {
  /** `auto` resolved: redis when the state backend is redis. */
  readonly store: 'file' | 'redis';
  /** The file store's path; undefined: defaultCredentialsFile(env). */
  readonly file?: string;
  /** The first seals, every one opens. */
  readonly keys: readonly KeySettings[];
  /** The origin of /connect links and /connect/callback; undefined when nothing needs connecting. */
  readonly publicUrl?: string;
  /** OpenID Connect sign-in of OAuth principals at `auth.oauth.issuer` on the connect page. */
  readonly login?: ClientSettings & { readonly issuer: string };
  readonly providers: readonly ProviderSettings[];
  readonly upstreams: readonly UpstreamAuth[];
  readonly scripts: readonly ScriptCredential[];
}
