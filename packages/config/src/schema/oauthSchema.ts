import { z } from 'zod';
import { count, envName, glob, scopeToken, secureUrl } from './fieldTypes.js';

const grantSkills = z.array(glob).min(1).describe('Globs of the skills this grant gives.');

const oauthGrantSchema = z.union([
  z.strictObject({ scope: scopeToken, skills: grantSkills }),
  z.strictObject({
    claim: z.strictObject({
      name: z.string().min(1).max(256),
      value: z.union([z.string().max(1024), z.number(), z.boolean()]),
    }),
    skills: grantSkills,
  }),
]);

/** The `auth.oauth` config section. */
export const oauthSchema = z.strictObject({
  issuer: secureUrl.describe(
    "The authorization server's issuer identifier; its metadata's issuer and every token's iss must equal it exactly.",
  ),
  audience: z
    .string()
    .min(1)
    .max(2048)
    .optional()
    .describe(
      'The token audience (aud) this gateway accepts; default server.public_url + server.path (the RFC 8707 resource).',
    ),
  jwks_uri: secureUrl
    .optional()
    .describe(
      "Where the issuer's signing keys are; default from its RFC 8414 metadata, else /.well-known/openid-configuration.",
    ),
  principal_claim: z
    .string()
    .min(1)
    .max(256)
    .default('sub')
    .describe('The token claim that names the principal (logs, client profiles, rate limits, job owners).'),
  scopes_supported: z
    .array(scopeToken)
    .max(256)
    .default([])
    .describe(
      'Scopes advertised in the Protected Resource Metadata (default: required_scopes and grant scopes).',
    ),
  required_scopes: z
    .array(scopeToken)
    .max(64)
    .default([])
    .describe(
      'Scopes every token must carry; a valid token without one of them gets 403 insufficient_scope.',
    ),
  grants: z
    .array(oauthGrantSchema)
    .max(1024)
    .default([])
    .describe(
      'Skills per scope or claim: { scope, skills } | { claim: { name, value }, skills }; a token gets the union of its matching grants, none matched, none.',
    ),
  failed_attempts_per_minute: count(0)
    .default(20)
    .describe(
      'Failed token checks one client address may cause per minute; past it, that address waits (429) before another new token is checked, so no unauthenticated client drives introspection or key fetches at its own rate. 0 = no limit.',
    ),
  introspection: z
    .strictObject({
      endpoint: secureUrl.describe("The issuer's RFC 7662 introspection endpoint."),
      client_id_env: envName.describe(
        'Environment variable holding the client id the gateway introspects as.',
      ),
      client_secret_env: envName.describe('Environment variable holding that client secret.'),
    })
    .optional()
    .describe(
      'RFC 7662 introspection for opaque (non-JWT) tokens: { endpoint, client_id_env, client_secret_env }.',
    ),
});
