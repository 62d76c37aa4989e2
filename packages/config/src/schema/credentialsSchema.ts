import { z } from 'zod';
import { envName, headerName, isHttpUrl, scopeToken, secureUrl } from './fieldTypes.js';

/** The id of a credentials provider (also part of store keys and /connections paths). */
export const providerId = z
  .string()
  .regex(
    /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/,
    'must be 1-32 of a-z 0-9 -, not starting or ending with -',
  );

/** How the gateway authenticates at a token endpoint (RFC 6749 §2.3.1). */
const tokenEndpointAuthMethod = z
  .enum(['client_secret_basic', 'client_secret_post'])
  .default('client_secret_basic')
  .describe('How the client authenticates at the token endpoint: client_secret_basic or client_secret_post.');

const keySchema = z
  .strictObject({
    id: z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,32}$/, 'must be 1-32 of A-Z a-z 0-9 . _ -')
      .describe('Names the key in every record it seals (so a rotation knows which key opens a record).'),
    env: envName.optional().describe('Environment variable holding the key: 32 random bytes, base64.'),
    file: z.string().min(1).optional().describe('File holding the key: 32 random bytes, base64.'),
  })
  .refine((key) => (key.env === undefined) !== (key.file === undefined), {
    message: 'give exactly one of env and file',
  });

const oauthProviderSchema = z
  .strictObject({
    issuer: secureUrl
      .optional()
      .describe("The provider's issuer: endpoints from its RFC 8414 / OpenID Connect metadata."),
    authorization_endpoint: secureUrl
      .optional()
      .describe('Where the browser is sent to authorize (without an issuer).'),
    token_endpoint: secureUrl
      .optional()
      .describe('Where codes and refresh tokens are redeemed (without an issuer).'),
    revocation_endpoint: secureUrl
      .optional()
      .describe("RFC 7009 revocation endpoint, if the provider's metadata does not name one."),
    client_id_env: envName.describe("Environment variable holding the gateway's client id at the provider."),
    client_secret_env: envName.describe('Environment variable holding that client secret.'),
    scopes: z.array(scopeToken).max(64).default([]).describe('Scopes asked for.'),
    resource: z
      .string()
      .refine(isHttpUrl, 'must be an http:// or https:// URL')
      .optional()
      .describe('RFC 8707 resource asked for; omitted when unset.'),
    token_endpoint_auth_method: tokenEndpointAuthMethod,
  })
  .superRefine((oauth, ctx) => {
    const explicit = oauth.authorization_endpoint !== undefined || oauth.token_endpoint !== undefined;
    if (oauth.issuer !== undefined && explicit) {
      ctx.addIssue({
        code: 'custom',
        path: ['issuer'],
        message: 'give either issuer or authorization_endpoint and token_endpoint, not both',
      });
    } else if (oauth.issuer === undefined) {
      for (const key of ['authorization_endpoint', 'token_endpoint'] as const) {
        if (oauth[key] === undefined) {
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required without an issuer' });
        }
      }
    }
  });

const providerSchema = z
  .strictObject({
    id: providerId.describe('Names the provider; a-z 0-9 -, unique.'),
    oauth: oauthProviderSchema
      .optional()
      .describe(
        'An OAuth account the principal connects (authorization code + PKCE; the gateway is a confidential client).',
      ),
    secret: z
      .strictObject({
        label: z.string().min(1).max(128).describe('What the connect page asks for, e.g. "ACME API key".'),
      })
      .optional()
      .describe("A secret the principal types on the gateway's connect page."),
  })
  .refine((p) => (p.oauth === undefined) !== (p.secret === undefined), {
    message: 'give exactly one of oauth and secret',
  });

/** The `credentials` config section (docs/credentials.md). */
export const credentialsSchema = z
  .strictObject({
    store: z
      .enum(['auto', 'file', 'redis'])
      .default('auto')
      .describe(
        'Where sealed per-principal credentials live: auto (redis when state.backend is redis, else file), file (one node) or redis (every replica).',
      ),
    file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The file store (0600, written by atomic rename); default $XDG_STATE_HOME/skillgate/credentials.json, else ~/.local/state/skillgate/credentials.json.',
      ),
    keys: z
      .array(keySchema)
      .max(16)
      .default([])
      .describe(
        'AES-256-GCM keys { id, env | file } (32 random bytes, base64): the first seals, every one opens (rotation: put the new key first).',
      ),
    connect: z
      .strictObject({
        public_url: z
          .string()
          .refine(isHttpUrl, 'must be an http:// or https:// URL without credentials')
          .optional()
          .describe(
            'The origin of /connect links and of the callback /connect/callback; default server.public_url.',
          ),
        login: z
          .strictObject({
            client_id_env: envName.describe(
              "Environment variable holding the gateway's client id at auth.oauth.issuer.",
            ),
            client_secret_env: envName.describe('Environment variable holding that client secret.'),
          })
          .optional()
          .describe(
            'How an OAuth principal proves in a browser who it is before connecting: an OpenID Connect sign-in at auth.oauth.issuer.',
          ),
      })
      .prefault({})
      .describe('The connect pages.'),
    providers: z
      .array(providerSchema)
      .max(64)
      .default([])
      .describe(
        'What a principal connects once and the gateway then uses on its behalf: { id, oauth: { issuer | authorization_endpoint + token_endpoint, client_id_env, client_secret_env, scopes, resource?, token_endpoint_auth_method, revocation_endpoint? } } | { id, secret: { label } }.',
      ),
  })
  .superRefine((credentials, ctx) => {
    const providers = new Set<string>();
    credentials.providers.forEach((provider, i) => {
      if (providers.has(provider.id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['providers', i, 'id'],
          message: `duplicate provider id "${provider.id}"`,
        });
      }
      providers.add(provider.id);
    });
    const keys = new Set<string>();
    credentials.keys.forEach((key, i) => {
      if (keys.has(key.id)) {
        ctx.addIssue({ code: 'custom', path: ['keys', i, 'id'], message: `duplicate key id "${key.id}"` });
      }
      keys.add(key.id);
    });
  });

const clientCredentialsFields = {
  token_endpoint: secureUrl.describe('Where the token is asked for.'),
  client_id_env: envName.describe("Environment variable holding the gateway's client id."),
  client_secret_env: envName.describe('Environment variable holding that client secret.'),
  scopes: z.array(scopeToken).max(64).default([]).describe('Scopes asked for.'),
  send_resource: z
    .boolean()
    .default(true)
    .describe('Send the audience as RFC 8707 resource too (some providers refuse the parameter).'),
  token_endpoint_auth_method: tokenEndpointAuthMethod,
};

/** `auth.client_credentials` of an upstream: the gateway's own identity. */
const clientCredentialsSchema = z.strictObject({
  ...clientCredentialsFields,
  audience: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe('The audience asked for (sent as audience); the resource sent is it, else the upstream URL.'),
});

const tokenExchangeSchema = z.strictObject({
  ...clientCredentialsFields,
  token_endpoint: secureUrl.describe(
    "The RFC 8693 token endpoint: the only place the caller's access token is ever sent.",
  ),
  audience: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe('The audience of the exchanged token; default the upstream URL.'),
  static_principals: z
    .enum(['deny', 'client_credentials'])
    .default('deny')
    .describe(
      "What a static-token principal (no OAuth token to exchange) gets: deny (a tool error) or client_credentials (the exchange client's own token).",
    ),
});

/** `upstreams[].auth`: per-principal or the gateway's own credentials for an HTTP upstream. */
export const upstreamAuthSchema = z
  .strictObject({
    provider: providerId
      .optional()
      .describe("The caller's own connection (a credentials.providers id), sent as the header below."),
    header: headerName
      .optional()
      .describe(
        'With provider: the header carrying the credential; default Authorization with "Bearer ", any other header gets the raw value.',
      ),
    token_exchange: tokenExchangeSchema
      .optional()
      .describe(
        "RFC 8693: the caller's OAuth access token exchanged for one whose audience is the upstream.",
      ),
    client_credentials: clientCredentialsSchema
      .optional()
      .describe("The gateway's own client-credentials token."),
    discovery: z
      .strictObject({
        headers_from_env: z
          .record(headerName, envName)
          .optional()
          .describe('Static headers: header name -> environment variable holding its whole value.'),
        client_credentials: clientCredentialsSchema
          .optional()
          .describe("The gateway's own client-credentials token."),
      })
      .refine((d) => (d.headers_from_env === undefined) !== (d.client_credentials === undefined), {
        message: 'give exactly one of headers_from_env and client_credentials',
      })
      .optional()
      .describe(
        "How the gateway lists a per-principal upstream's tools (once for everyone): headers_from_env or client_credentials; default without a credential, else the first connected principal's.",
      ),
  })
  .superRefine((auth, ctx) => {
    const modes = [auth.provider, auth.token_exchange, auth.client_credentials].filter(
      (m) => m !== undefined,
    );
    if (modes.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give exactly one of provider, token_exchange and client_credentials',
      });
    }
    if (auth.header !== undefined && auth.provider === undefined) {
      ctx.addIssue({ code: 'custom', path: ['header'], message: 'only applies with provider' });
    }
    if (auth.discovery !== undefined && auth.client_credentials !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['discovery'],
        message: 'only applies with provider or token_exchange (client_credentials lists with its own token)',
      });
    }
  });
