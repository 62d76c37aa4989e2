import { z } from 'zod';
import { envName, glob } from './fieldTypes.js';
import { oauthSchema } from './oauthSchema.js';

const tokenSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ -'),
    token_env: envName.optional(),
    token_sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
      .optional(),
    skills: z.array(glob).default(['*']),
    // Only a static token can open the operator page: an OAuth principal never does (docs/operator.md).
    admin: z.boolean().default(false),
  })
  .refine((t) => (t.token_env === undefined) !== (t.token_sha256 === undefined), {
    message: 'give exactly one of token_env and token_sha256',
  });

/** Token names that label callers without a token (compared case-insensitively). */
const RESERVED_TOKEN_NAMES = new Set(['anonymous', 'anon']);

/** The `auth` config section. */
export const authSchema = z
  .strictObject({
    tokens: z
      .array(tokenSchema)
      .default([])
      .describe(
        'Bearer tokens: { name, token_env | token_sha256, skills: [globs], admin }; `admin: true` opens the operator page at GET /; `anonymous` and `anon` are reserved names.',
      ),
    allow_anonymous: z
      .boolean()
      .default(false)
      .describe('Allow requests without a token (required to bind a non-loopback host without tokens).'),
    anonymous_skills: z.array(glob).default(['*']).describe('Skills visible to anonymous requests (globs).'),
    oauth: oauthSchema
      .optional()
      .describe(
        'OAuth 2.1 resource server (docs/auth.md): accept access tokens of one issuer beside auth.tokens.',
      ),
  })
  .superRefine((auth, ctx) => {
    // Names label principals in logs, limits and client profiles, so two tokens may not share one, and none may
    // take the name of the principal without a token (`skillgate skills --token anonymous` names that one).
    const seen = new Set<string>();
    auth.tokens.forEach((token, i) => {
      if (RESERVED_TOKEN_NAMES.has(token.name.toLowerCase())) {
        ctx.addIssue({
          code: 'custom',
          path: ['tokens', i, 'name'],
          message: `"${token.name}" is reserved for requests without a token; pick another name`,
        });
      }
      if (seen.has(token.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tokens', i, 'name'],
          message: `duplicate token name "${token.name}"`,
        });
      }
      seen.add(token.name);
    });
  });
