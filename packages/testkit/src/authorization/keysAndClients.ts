import { exportJWK, generateKeyPair, type CryptoKey as JoseCryptoKey, type JWK } from 'jose';

/** A signing key of the test server: the private JWK it signs with and its kid. */
export interface ProviderKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
  readonly privateKey: JoseCryptoKey;
}

/** Makes an RS256 key with a kid. */
export async function makeKey(kid: string): Promise<ProviderKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, privateJwk, publicJwk, privateKey };
}

/** A client registered at the test authorization server. */
export interface AuthorizationClient {
  readonly id: string;
  readonly secret: string;
  /** Scopes it may ask for (default every scope of the server). */
  readonly scopes?: readonly string[];
  /** Extra claims in its access tokens (e.g. groups for claim grants). */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Its access tokens as opaque strings (checked by introspection) instead of JWTs. */
  readonly opaque?: boolean;
  /** Where codes may be sent back (authorization code flow); none: client credentials and exchange only. */
  readonly redirectUris?: readonly string[];
  /** client_secret_basic (default) or client_secret_post. */
  readonly authMethod?: 'client_secret_basic' | 'client_secret_post';
}
