import { CredentialsError } from '../credentialsError.js';
import type { ClientConfigurations } from '../oauth/clientConfigurations.js';
import { authorizationUrlOf, mapOAuthError, redeemCallback } from '../oauth/tokenRequests.js';
import type { ConnectFlow } from './connectFlows.js';

/** The sign-in at auth.oauth.issuer that binds a browser to an OAuth principal (`credentials.connect.login`). */
export interface SignIns {
  /** The issuer's authorization URL for a flow's sign-in. */
  urlOf(flow: ConnectFlow): Promise<string>;
  /** Redeems a sign-in's callback and names the principal who signed in (undefined: none this gateway serves). */
  principalOf(
    login: NonNullable<ConnectFlow['login']>,
    callback: URL,
    state: string,
  ): Promise<string | undefined>;
}

/** Options of createSignIns. */
export interface SignInsOptions {
  readonly configurations: ClientConfigurations;
  /** /connect/callback at the public URL: the redirect_uri of every sign-in. */
  readonly callbackUrl: () => string;
  /** The principal an ID token's claims name (auth.oauth's principal claim), or undefined. */
  readonly loginPrincipal: ((claims: Readonly<Record<string, unknown>>) => string | undefined) | undefined;
}

/** Sign-ins for the connect page and /connections: code flow with PKCE and a nonce, `openid` only. */
export function createSignIns(options: SignInsOptions): SignIns {
  const { configurations } = options;
  return {
    async urlOf(flow) {
      if (flow.login === undefined) throw new CredentialsError('FLOW_INVALID', 'this flow has no sign-in');
      const url = await authorizationUrlOf(await configurations.login(), {
        redirectUri: options.callbackUrl(),
        state: `${flow.id}.${flow.login.state}`,
        verifier: flow.login.verifier,
        nonce: flow.login.nonce,
        scopes: ['openid'],
      });
      return url.href;
    },
    async principalOf(login, callback, state) {
      let claims: Record<string, unknown> | undefined;
      try {
        const config = await configurations.login();
        claims = (
          await redeemCallback(config, callback, { state, verifier: login.verifier, nonce: login.nonce })
        ).claims();
      } catch (error) {
        throw mapOAuthError(error, 'CALLBACK_REFUSED', 'sign-in', 'auth.oauth.issuer');
      }
      return claims === undefined ? undefined : options.loginPrincipal?.(claims);
    },
  };
}
