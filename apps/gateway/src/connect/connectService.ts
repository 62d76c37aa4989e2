/**
 * What the connect pages need of the credentials behind the gateway (docs/credentials.md). The pages own the
 * browser: forms, the cookie, which principal a browser proved to be. The service owns flows, tokens and the
 * store; compose/ adapts @skillgate/credentials to it.
 */

/** A pending connect flow: one principal connecting one provider, valid until it completes or expires. */
export interface PendingFlow {
  readonly id: string;
  /** The credential owner it was made for (`token:<name>`, `oauth:<iss>#<sub>`; credentialOwnerOf). */
  readonly owner: string;
  readonly provider: string;
  /** oauth: the browser is sent to the provider; secret: the page asks for the value. */
  readonly kind: 'oauth' | 'secret';
  /** The provider's name for people (a secret provider's `label`, else its id). */
  readonly label: string;
}

/** One of a principal's connections, as /connections lists it (never a value). */
export interface ConnectionView {
  readonly provider: string;
  readonly state: 'connected' | 'expired';
  /** When its access token expires (ms since the epoch), when known. */
  readonly expiresAt?: number;
}

/** What came back to /connect/callback: a sign-in at the gateway's issuer, or a provider's authorization. */
export type CallbackOutcome =
  | { readonly kind: 'signed_in'; readonly owner: string; readonly returnTo: string }
  | { readonly kind: 'connected'; readonly flow: PendingFlow };

/** The connect pages' view of the credentials service. */
export interface ConnectService {
  /** A pending flow, or undefined when it is unknown, expired or completed. */
  flow(id: string): Promise<PendingFlow | undefined>;
  /** Opens a browser binding for `owner` (10 minutes); resolves to the cookie value that proves it. */
  bindBrowser(owner: string): Promise<string>;
  /** The owner a browser's cookie value proves, or undefined. */
  browserOwner(cookie: string): Promise<string | undefined>;
  /** The provider's authorization URL for a bound flow (state and PKCE verifier kept with the flow). */
  authorizationUrl(flow: PendingFlow): Promise<URL>;
  /**
   * Sign-in at `auth.oauth.issuer` (connect.login) for OAuth principals; undefined when not configured. The
   * URL's state remembers `returnTo`.
   */
  readonly signIn?: (returnTo: string) => Promise<URL>;
  /**
   * Completes what came back to /connect/callback: a sign-in (the ID token's issuer and subject) or a
   * provider's code for a flow whose owner `browserOwner` must be. Throws GatewayError CONNECT_REFUSED,
   * CONNECT_LINK_EXPIRED or CONNECT_PROVIDER_FAILED when it cannot; nothing is stored then.
   */
  completeCallback(callback: URL, browserOwner: string | undefined): Promise<CallbackOutcome>;
  /** Stores a secret provider's value for a bound flow and completes the flow. */
  storeSecret(flow: PendingFlow, value: string): Promise<void>;
  /** The owner's connections. */
  connections(owner: string): Promise<readonly ConnectionView[]>;
  /** Deletes the owner's connection (revoked at the provider where it offers that); false if there was none. */
  disconnect(owner: string, provider: string): Promise<boolean>;
}
