import type { RedisConnection } from '@skillgate/state';
import type { CredentialsErrorCode } from './credentialsError.js';
import type { RequestStateCodec } from './flows/requestState.js';
import type { CredentialsSettings } from './settings.js';
import type { CredentialStore } from './store/credentialStore.js';

/** One line for the gateway's log: codes and ids, never a token, secret or key. */
export interface CredentialsLogEntry {
  readonly level: 'warn' | 'error';
  readonly code: CredentialsErrorCode | 'RECORD_UNREADABLE' | 'REVOCATION_FAILED';
  readonly message: string;
  readonly provider?: string;
  readonly principal?: string;
}

/** Something to count (metrics): per provider or upstream id, and how it went. */
export interface CredentialsEvent {
  readonly kind: 'connect' | 'refresh' | 'exchange' | 'client_credentials' | 'disconnect';
  /** The provider id (connect, refresh, disconnect) or upstream id (exchange, client_credentials). */
  readonly provider: string;
  /** ok; refused: the server said no (the connection dropped, the exchange denied); failed: it was unreachable. */
  readonly outcome: 'ok' | 'refused' | 'failed';
}

/** Options of createCredentials. */
export interface CredentialsOptions {
  readonly settings: CredentialsSettings;
  /** Where client ids, secrets and keys named by the settings are read (process.env at the entry point). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The shared-state connection; required with `store: redis`. */
  readonly redis?: RedisConnection;
  /** An explicit store (tests, the CLI); default from the settings. */
  readonly store?: CredentialStore;
  readonly log?: (entry: CredentialsLogEntry) => void;
  /** Counts connects, refreshes, exchanges and failures (the gateway's metrics). */
  readonly onEvent?: (event: CredentialsEvent) => void;
  /**
   * The principal id of a person signed in at `auth.oauth.issuer` on the connect page, from the ID token's
   * claims (the gateway's rule for OAuth principal ids); undefined: the sign-in does not name one.
   */
  readonly loginPrincipal?: (claims: Readonly<Record<string, unknown>>) => string | undefined;
  readonly now?: () => number;
}

/** The answer for credentials of an upstream call or a script run. */
export type CredentialAnswer<T> =
  | T
  | { readonly kind: 'connect'; readonly provider: string }
  | { readonly kind: 'refused'; readonly code: CredentialsErrorCode; readonly message: string };

/** Headers to send to an upstream for one principal, or why not. */
export type HeadersAnswer = CredentialAnswer<{
  readonly kind: 'headers';
  readonly headers: Readonly<Record<string, string>>;
}>;

/** Environment variables for a skill's scripts for one principal, or why not. */
export type ScriptEnvAnswer = CredentialAnswer<{
  readonly kind: 'env';
  readonly env: Readonly<Record<string, string>>;
}>;

/** A connect flow handed out: its page, `<public_url>/connect/<id>`, carries nothing that identifies anyone. */
export interface FlowLink {
  readonly id: string;
  readonly url: string;
  readonly provider: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** What the connect page needs to know about a flow. */
export interface FlowView {
  readonly id: string;
  readonly principal: string;
  readonly provider: string;
  readonly kind: 'oauth' | 'secret';
  /** A secret provider's label. */
  readonly label?: string;
  readonly expiresAt: number;
}

/** What a callback at /connect/callback completed. */
export type CallbackResult =
  /** The connect-page sign-in matched the flow's principal: send the browser to `redirect` (the provider). */
  | { readonly kind: 'login'; readonly flow: string; readonly redirect: string }
  /** The provider's tokens are stored. */
  | { readonly kind: 'connected'; readonly principal: string; readonly provider: string };

/**
 * The secrets of a sign-in that is not part of a connect flow (/connections in a browser): nothing is stored
 * for it; the page keeps them in its sealed browser cookie and hands them back with the callback.
 */
export interface SignInSecrets {
  readonly state: string;
  readonly verifier: string;
  readonly nonce: string;
}

/** One of a principal's connections, without its value. */
export interface ConnectionState {
  readonly principal: string;
  readonly provider: string;
  /** expired: the token has lapsed and cannot be refreshed (the person connects again). */
  readonly state: 'connected' | 'expired';
  /** Epoch ms the access token expires, when the provider said. */
  readonly expiresAt?: number;
}

/** Each principal's credentials for what sits behind the gateway (docs/credentials.md). */
export interface Credentials {
  /** Headers for a call to an upstream with `auth` (none for other upstreams); accessToken: an OAuth caller's. */
  headersFor(upstream: string, principal: string, accessToken?: string): Promise<HeadersAnswer>;
  /** Headers to list a per-principal upstream's tools with, or undefined to list without a credential. */
  discoveryHeaders(upstream: string): Promise<Readonly<Record<string, string>> | undefined>;
  /** The `scripts.credentials` variables of a skill's scripts for a principal (an empty env when none apply). */
  scriptEnv(skill: string, principal: string): Promise<ScriptEnvAnswer>;
  /**
   * The upstream answered 401 to `sent` (the headers headersFor gave): that token is dropped, so the next
   * headersFor fetches (client credentials, exchange) or refreshes (a connection) once.
   */
  onUpstream401(upstream: string, principal: string, sent?: Readonly<Record<string, string>>): Promise<void>;
  /** The principal's pending flow for the provider, or a new one (10 minutes, single-use). */
  startFlow(principal: string, provider: string): Promise<FlowLink>;
  /** A live flow, or undefined. */
  flow(id: string): Promise<FlowView | undefined>;
  /** The sign-in at auth.oauth.issuer that binds the browser to an OAuth principal (`credentials.connect.login`). */
  loginUrl(flowId: string): Promise<string>;
  /**
   * A sign-in at auth.oauth.issuer for a browser that is not connecting anything (/connections): the issuer's
   * URL and the secrets the page keeps in the browser's sealed cookie (nothing is stored: an unauthenticated
   * page writes nothing to the store).
   */
  startSignIn(): Promise<{ readonly url: string; readonly secrets: SignInSecrets }>;
  /** Whether a callback at /connect/callback ends such a sign-in (its `state` is `signin.<random>`). */
  isSignInCallback(callbackUrl: string): boolean;
  /**
   * Completes such a sign-in with the secrets its browser kept: the principal who signed in (FLOW_FORBIDDEN
   * for a state that is not theirs or a person this gateway does not serve; the code is single-use at the
   * issuer, so a callback never works twice).
   */
  completeSignIn(callbackUrl: string, secrets: SignInSecrets): Promise<string>;
  /** The provider's authorization URL, once the page knows the browser is `principal` (else FLOW_FORBIDDEN). */
  authorizationUrl(flowId: string, principal: string): Promise<string>;
  /**
   * The origin of an OAuth provider's authorization endpoint, where the connect page's token form ends up after
   * its redirects (the page's CSP form-action must name it); undefined for a secret provider or an unknown one.
   */
  authorizationOrigin(provider: string): Promise<string | undefined>;
  /**
   * What a callback at /connect/callback would complete, without completing it: the connect-page sign-in, a
   * provider's authorization (the page first checks the browser is the flow's principal), or nothing.
   */
  callbackOf(
    callbackUrl: string,
  ): Promise<{ readonly kind: 'login' | 'authorization'; readonly flow: FlowView } | undefined>;
  /** Completes a callback at /connect/callback (the full URL, query included). */
  completeCallback(callbackUrl: string): Promise<CallbackResult>;
  /** Stores a secret provider's value typed on the page by `principal`; uses the flow up. */
  storeSecret(flowId: string, principal: string, value: string): Promise<void>;
  /** A principal's connections, or everyone's (the CLI). */
  connections(principal?: string): Promise<readonly ConnectionState[]>;
  /** Deletes a connection, revoking its tokens where the provider offers RFC 7009. */
  disconnect(
    principal: string,
    provider: string,
  ): Promise<{ readonly removed: boolean; readonly revoked: boolean }>;
  /** Connections per provider id (the operator page). */
  counts(): Promise<Readonly<Record<string, number>>>;
  /** Seals and opens 2026-07-28 requestState values. */
  readonly requestState: RequestStateCodec;
  close(): Promise<void>;
}
