import { z } from 'zod';
import { fetchJson } from './fetchJson.js';

/** What the gateway needs from an authorization server's metadata. */
export interface IssuerMetadata {
  readonly issuer: string;
  readonly jwksUri: string | undefined;
  readonly introspectionEndpoint: string | undefined;
}

const metadataSchema = z.looseObject({
  issuer: z.string(),
  jwks_uri: z.string().optional(),
  introspection_endpoint: z.string().optional(),
});

/**
 * The metadata URLs to try, in order: RFC 8414 (the well-known segment inserted before the issuer's path),
 * then OpenID Connect Discovery (appended to the issuer), then the OIDC form inserted like RFC 8414.
 */
function metadataUrls(issuer: string): readonly string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  const at = (wellKnown: string, suffix: string) => `${url.origin}/.well-known/${wellKnown}${suffix}`;
  return [
    at('oauth-authorization-server', path),
    `${url.origin}${path}/.well-known/openid-configuration`,
    ...(path === '' ? [] : [at('openid-configuration', path)]),
  ];
}

/**
 * Reads the issuer's metadata (docs/auth.md, "Discovery"). A document whose `issuer` is not exactly the
 * configured one is refused: otherwise a server could name keys for an issuer it does not speak for.
 */
export async function discoverIssuer(issuer: string, timeoutMs: number): Promise<IssuerMetadata> {
  const failures: string[] = [];
  for (const url of metadataUrls(issuer)) {
    let document: unknown;
    try {
      document = await fetchJson(url, { timeoutMs, maxBytes: 256 * 1024 });
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
      continue;
    }
    const parsed = metadataSchema.safeParse(document);
    if (!parsed.success) {
      failures.push(`${url}: not authorization server metadata`);
      continue;
    }
    if (parsed.data.issuer !== issuer) {
      throw new Error(
        `${url} names issuer ${JSON.stringify(parsed.data.issuer)}, not ${JSON.stringify(issuer)}`,
      );
    }
    return {
      issuer,
      jwksUri: parsed.data.jwks_uri,
      introspectionEndpoint: parsed.data.introspection_endpoint,
    };
  }
  throw new Error(`no metadata for issuer ${issuer}: ${failures.join('; ')}`);
}
