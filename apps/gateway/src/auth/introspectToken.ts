import { z } from 'zod';
import { fetchJson } from './fetchJson.js';

/** Options of introspectToken: the RFC 7662 endpoint and the gateway's client credentials. */
export interface IntrospectionOptions {
  readonly endpoint: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly timeoutMs: number;
}

const introspectionSchema = z.looseObject({
  active: z.boolean(),
  scope: z.string().optional(),
  iss: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  exp: z.number().optional(),
  nbf: z.number().optional(),
});

/** An introspection answer: `active`, and the token's claims when it is. */
type IntrospectionResult = z.infer<typeof introspectionSchema>;

// RFC 6749 §2.3.1: client id and secret are form-encoded before they are joined for Basic.
const formEncode = (value: string): string => encodeURIComponent(value).replaceAll('%20', '+');

/** Asks the authorization server about an opaque token (RFC 7662); throws when it cannot be asked. */
export async function introspectToken(
  token: string,
  options: IntrospectionOptions,
): Promise<IntrospectionResult> {
  const basic = Buffer.from(`${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`).toString(
    'base64',
  );
  const answer = await fetchJson(options.endpoint, {
    method: 'POST',
    timeoutMs: options.timeoutMs,
    maxBytes: 64 * 1024,
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
  });
  return introspectionSchema.parse(answer);
}
