import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import { CredentialsError } from '../credentialsError.js';
import type { ClientConfigurations } from '../oauth/clientConfigurations.js';
import { authorizationUrlOf, mapOAuthError, redeemCallback } from '../oauth/tokenRequests.js';
import type { SignInSecrets } from '../types.js';
import type { ConnectFlow } from './connectFlows.js';

// The `state` of a sign-in outside any flow: no flow id is this (flow ids are 22 base64url characters).
const SIGN_IN_STATE_PREFIX = 'signin.';

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
  /** A sign-in outside any flow: the issuer's URL and its secrets (kept by the browser, not stored). */
  start(): Promise<{ readonly url: string; readonly secrets: SignInSecrets }>;
  /** Whether a callback ends a sign-in outside any flow. */
  isCallback(callback: URL): boolean;
  /** Completes a sign-in outside any flow with its secrets; FLOW_FORBIDDEN for a state that is not theirs. */
  complete(callback: URL, secrets: SignInSecrets): Promise<string | undefined>;
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
  const authorizationUrl = async (state: string, login: Omit<SignInSecrets, 'state'>): Promise<string> => {
    const url = await authorizationUrlOf(await configurations.login(), {
      redirectUri: options.callbackUrl(),
      state,
      verifier: login.verifier,
      nonce: login.nonce,
      scopes: ['openid'],
    });
    return url.href;
  };
  const principalOf: SignIns['principalOf'] = async (login, callback, state) => {
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
  };
  return {
    async urlOf(flow) {
      if (flow.login === undefined) throw new CredentialsError('FLOW_INVALID', 'this flow has no sign-in');
      return authorizationUrl(`${flow.id}.${flow.login.state}`, flow.login);
    },
    principalOf,
    async start() {
      const secrets = { state: randomState(), verifier: randomPKCECodeVerifier(), nonce: randomNonce() };
      return { url: await authorizationUrl(SIGN_IN_STATE_PREFIX + secrets.state, secrets), secrets };
    },
    isCallback: (callback) => callback.searchParams.get('state')?.startsWith(SIGN_IN_STATE_PREFIX) === true,
    async complete(callback, secrets) {
      const state = SIGN_IN_STATE_PREFIX + secrets.state;
      if (callback.searchParams.get('state') !== state) {
        throw new CredentialsError('FLOW_FORBIDDEN', 'this sign-in was started in another browser');
      }
      return principalOf(secrets, callback, state);
    },
  };
}
