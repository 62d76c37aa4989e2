import { randomBytes } from 'node:crypto';
import type { AuthorizationServer } from '@skillgate/testkit';

/** The gateway's client at auth.oauth.issuer for the connect page's sign-in (`credentials.connect.login`). */
export const LOGIN = { id: 'skillgate-login', secret: 'skillgate-login-secret-0123' };
/** The gateway's client at the `acme` provider. */
export const ACME = { id: 'skillgate', secret: 'skillgate-client-secret-0123' };

/** What acmeConnection needs: the provider's authorization server and the upstream it guards. */
export interface AcmeConnectionOptions {
  readonly provider: AuthorizationServer;
  readonly upstreamUrl: string;
  /** The credentials store's file (default: the store's own default). */
  readonly file?: string;
}

/**
 * The config sections and environment of a gateway whose `acme` upstream takes each person's own OAuth
 * connection (docs/credentials.md, "provider"), with the connect page's sign-in at auth.oauth.issuer: the
 * set-up the connect-page tests share (a browser, a load balancer, /connections).
 */
export function acmeConnection(options: AcmeConnectionOptions): {
  readonly config: { credentials: object; upstreams: object[] };
  readonly env: Record<string, string>;
} {
  return {
    config: {
      credentials: {
        ...(options.file === undefined ? {} : { store: 'file', file: options.file }),
        keys: [{ id: 'k1', env: 'SG_KEY' }],
        connect: { login: { client_id_env: 'LOGIN_ID', client_secret_env: 'LOGIN_SECRET' } },
        providers: [
          {
            id: 'acme',
            oauth: {
              issuer: options.provider.issuer,
              client_id_env: 'ACME_ID',
              client_secret_env: 'ACME_SECRET',
              scopes: ['repo'],
              resource: options.upstreamUrl,
            },
          },
        ],
      },
      upstreams: [{ id: 'acme', url: options.upstreamUrl, auth: { provider: 'acme' } }],
    },
    env: {
      SG_KEY: randomBytes(32).toString('base64'),
      LOGIN_ID: LOGIN.id,
      LOGIN_SECRET: LOGIN.secret,
      ACME_ID: ACME.id,
      ACME_SECRET: ACME.secret,
    },
  };
}
