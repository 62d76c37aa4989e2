import { randomUUID } from 'node:crypto';
import { type JWTVerifyGetKey, jwtVerify, SignJWT } from 'jose';
import type Provider from 'oidc-provider';
import type { TokenEndpointGrantContext } from 'oidc-provider';
import type { ProviderKey } from './keysAndClients.js';

/** RFC 8693's grant type. */
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** What the exchange needs of its server. */
export interface TokenExchangeOptions {
  readonly issuer: string;
  /** The server's current key set (it changes on rotation). */
  readonly jwks: () => JWTVerifyGetKey;
  readonly signingKey: () => ProviderKey;
  readonly ttlSeconds: number;
  /** Counts refused exchanges. */
  readonly onRefused: () => void;
}

/**
 * RFC 8693 through oidc-provider's registerGrantType: the subject token must be one of this server's own
 * valid access tokens (a JWT it signed, or an opaque one it stored), and the issued token is a JWT for the
 * requested `audience` (else `resource`) naming the same subject, with `act` naming the client that asked.
 */
export function registerTokenExchange(provider: Provider, options: TokenExchangeOptions): void {
  const subjectOf = async (token: string): Promise<string | undefined> => {
    if (token.split('.').length === 3) {
      try {
        const { payload } = await jwtVerify(token, options.jwks(), { issuer: options.issuer });
        return typeof payload.sub === 'string' ? payload.sub : undefined;
      } catch {
        return undefined;
      }
    }
    const found = await provider.AccessToken.find(token);
    return found?.isValid === true ? found.accountId : undefined;
  };

  provider.registerGrantType(
    TOKEN_EXCHANGE,
    async (ctx: TokenEndpointGrantContext) => {
      const { params, client } = ctx.oidc;
      const refuse = (error: string, description: string): void => {
        options.onRefused();
        ctx.status = 400;
        ctx.body = { error, error_description: description };
      };
      if (params.subject_token_type !== ACCESS_TOKEN_TYPE || typeof params.subject_token !== 'string') {
        refuse('invalid_request', 'subject_token of type access_token required');
        return;
      }
      const subject = await subjectOf(params.subject_token);
      if (subject === undefined) {
        refuse('invalid_grant', 'subject_token is not a valid access token of this server');
        return;
      }
      const audience =
        typeof params.audience === 'string'
          ? params.audience
          : typeof params.resource === 'string'
            ? params.resource
            : undefined;
      if (audience === undefined) {
        refuse('invalid_target', 'audience or resource required');
        return;
      }
      const scope = typeof params.scope === 'string' ? params.scope : undefined;
      const key = options.signingKey();
      const now = Math.floor(Date.now() / 1000);
      const jwt = await new SignJWT({ scope, client_id: client.clientId, act: { sub: client.clientId } })
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
        .setIssuer(options.issuer)
        .setSubject(subject)
        .setAudience(audience)
        .setIssuedAt(now)
        .setJti(randomUUID())
        .setExpirationTime(now + options.ttlSeconds)
        .sign(key.privateKey);
      ctx.body = {
        access_token: jwt,
        issued_token_type: ACCESS_TOKEN_TYPE,
        token_type: 'Bearer',
        expires_in: options.ttlSeconds,
        ...(scope === undefined ? {} : { scope }),
      };
    },
    ['subject_token', 'subject_token_type', 'audience', 'resource', 'scope', 'requested_token_type'],
    ['audience', 'resource'],
  );
}
