import { createHash } from 'node:crypto';
import type { RedisConnection } from '@skillgate/state';
import type { Configuration, TokenEndpointResponse } from 'openid-client';
import picomatch from 'picomatch';
import { CredentialsError, type CredentialsErrorCode } from './credentialsError.js';
import { type ConnectFlow, createConnectFlows, freshLogin } from './flows/connectFlows.js';
import { createRequestStateCodec, type RequestStateCodec } from './flows/requestState.js';
import { createKeyRing, loadKeys } from './keys/keyRing.js';
import {
  type ClientConfiguration,
  createClientConfiguration,
  envValue,
} from './oauth/clientConfiguration.js';
import { createTokenCache, EXPIRY_MARGIN_MS, renewAtOf } from './oauth/tokenCache.js';
import {
  authorizationUrlOf,
  mapOAuthError,
  oauthErrorCode,
  redeemCallback,
  requestClientCredentials,
  requestRefresh,
  requestTokenExchange,
  revoke,
} from './oauth/tokenRequests.js';
import type {
  ClientCredentialsSettings,
  CredentialsSettings,
  OAuthProviderSettings,
  ProviderSettings,
  UpstreamAuth,
} from './settings.js';
import type { CredentialStore } from './store/credentialStore.js';
import { defaultCredentialsFile } from './store/defaultCredentialsFile.js';
import { createFileStore } from './store/fileStore.js';
import { createRedisStore } from './store/redisStore.js';
import { type Credential, createVault, type OAuthCredential } from './store/vault.js';

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
  /** The provider's authorization URL, once the page knows the browser is `principal` (else FLOW_FORBIDDEN). */
  authorizationUrl(flowId: string, principal: string): Promise<string>;
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

/** Largest secret a person may store (a header value must stay well within any server's header limits). */
const MAX_SECRET_BYTES = 8192;
/** A refresh holds its lock at most this long; waiters give up after as long. */
const REFRESH_LOCK_MS = 30_000;

const connect = (provider: string) => ({ kind: 'connect', provider }) as const;
const refused = (error: CredentialsError) =>
  ({ kind: 'refused', code: error.code, message: error.message }) as const;
const lockName = (principal: string, provider: string): string =>
  `refresh:${createHash('sha256')
    .update(JSON.stringify([principal, provider]))
    .digest('base64url')}`;
const digest = (value: string): string => createHash('sha256').update(value).digest('base64url');

const credentialOf = (
  response: TokenEndpointResponse,
  now: number,
  previous?: OAuthCredential,
): OAuthCredential => {
  const refreshToken = response.refresh_token ?? previous?.refreshToken;
  const scope = response.scope ?? previous?.scope;
  return {
    kind: 'oauth',
    accessToken: response.access_token,
    ...(refreshToken === undefined ? {} : { refreshToken }),
    ...(response.expires_in === undefined ? {} : { expiresAt: now + response.expires_in * 1000 }),
    ...(scope === undefined ? {} : { scope }),
    connectedAt: previous?.connectedAt ?? now,
  };
};

/** Builds the credentials service from its settings; reads keys now (KEY_INVALID stops the start). */
export function createCredentials(options: CredentialsOptions): Credentials {
  const { settings, env } = options;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const emit = options.onEvent ?? (() => {});
  const ring = createKeyRing(loadKeys(settings.keys, env));
  const store = options.store ?? createStore();
  const vault = createVault(store, ring, ({ principal, provider }) =>
    log({
      level: 'warn',
      code: 'RECORD_UNREADABLE',
      message: `a stored credential of ${provider} does not open with credentials.keys (copied, tampered, or its key removed); treated as absent`,
      provider,
      principal,
    }),
  );
  const flows = createConnectFlows(store, ring, { now, withLogin: settings.login !== undefined });
  const requestState = createRequestStateCodec(ring, now);
  const tokens = createTokenCache(now);
  const providers = new Map<string, ProviderSettings>(settings.providers.map((p) => [p.id, p]));
  const upstreams = new Map<string, UpstreamAuth>(settings.upstreams.map((u) => [u.upstream, u]));
  const callbackUrl =
    settings.publicUrl === undefined ? undefined : new URL('/connect/callback', settings.publicUrl).href;
  // Access tokens that an upstream answered 401 to: refreshed on next use even if not yet expired.
  const rejected = new Map<string, string>();
  const refreshes = new Map<string, Promise<CredentialAnswer<{ kind: 'token'; token: string }>>>();
  const scriptMatchers = settings.scripts.map((entry) => ({
    entry,
    match: picomatch(entry.skills as string[], { dot: true }),
  }));

  function createStore(): CredentialStore {
    if (settings.store === 'redis') {
      if (options.redis === undefined)
        throw new CredentialsError('STORE_UNAVAILABLE', 'credentials.store redis needs a Redis connection');
      return createRedisStore({ redis: options.redis });
    }
    return createFileStore({ path: settings.file ?? defaultCredentialsFile(env), now });
  }

  const configurations = new Map<string, ClientConfiguration>();
  const configurationOf = (key: string, make: () => ClientConfiguration): Promise<Configuration> => {
    let config = configurations.get(key);
    if (config === undefined) {
      config = make();
      configurations.set(key, config);
    }
    return config();
  };
  const providerConfig = (provider: OAuthProviderSettings): Promise<Configuration> =>
    configurationOf(`provider:${provider.id}`, () =>
      createClientConfiguration({
        name: provider.id,
        server: {
          ...(provider.issuer === undefined ? {} : { issuer: provider.issuer }),
          ...(provider.authorizationEndpoint === undefined
            ? {}
            : { authorizationEndpoint: provider.authorizationEndpoint }),
          ...(provider.tokenEndpoint === undefined ? {} : { tokenEndpoint: provider.tokenEndpoint }),
          ...(provider.revocationEndpoint === undefined
            ? {}
            : { revocationEndpoint: provider.revocationEndpoint }),
        },
        client: provider,
        env,
      }),
    );
  const tokenEndpointConfig = (
    key: string,
    name: string,
    client: ClientCredentialsSettings,
  ): Promise<Configuration> =>
    configurationOf(key, () =>
      createClientConfiguration({ name, server: { tokenEndpoint: client.tokenEndpoint }, client, env }),
    );

  const oauthProvider = (id: string): OAuthProviderSettings => {
    const provider = providers.get(id);
    if (provider?.kind !== 'oauth')
      throw new CredentialsError('FLOW_INVALID', `no OAuth provider "${id}"`, { provider: id });
    return provider;
  };

  // --- The gateway's own tokens: client credentials, one request however many callers wait.
  const clientCredentialsToken = (upstream: string, client: ClientCredentialsSettings): Promise<string> =>
    tokens.get(`cc:${upstream}`, async () => {
      try {
        const config = await tokenEndpointConfig(`cc:${upstream}`, upstream, client);
        const response = await requestClientCredentials(config, client);
        emit({ kind: 'client_credentials', provider: upstream, outcome: 'ok' });
        return { accessToken: response.access_token, renewAt: renewAtOf(now(), response.expires_in) };
      } catch (error) {
        const mapped = mapOAuthError(error, 'EXCHANGE_FAILED', 'client credentials', upstream);
        emit({
          kind: 'client_credentials',
          provider: upstream,
          outcome: mapped.code === 'EXCHANGE_FAILED' ? 'refused' : 'failed',
        });
        throw mapped;
      }
    });

  // --- RFC 8693: the caller's token for the upstream's, cached per principal and subject token.
  const exchangedToken = (
    upstream: string,
    auth: Extract<UpstreamAuth, { kind: 'token_exchange' }>,
    principal: string,
    subject: string,
  ) =>
    tokens.get(`x:${upstream}:${principal}\n${digest(subject)}`, async () => {
      try {
        const config = await tokenEndpointConfig(`x:${upstream}`, upstream, auth.exchange);
        const response = await requestTokenExchange(config, subject, auth.exchange);
        emit({ kind: 'exchange', provider: upstream, outcome: 'ok' });
        return { accessToken: response.access_token, renewAt: renewAtOf(now(), response.expires_in) };
      } catch (error) {
        const mapped = mapOAuthError(error, 'EXCHANGE_FAILED', 'token exchange', upstream);
        emit({
          kind: 'exchange',
          provider: upstream,
          outcome: mapped.code === 'EXCHANGE_FAILED' ? 'refused' : 'failed',
        });
        throw mapped;
      }
    });

  // --- A principal's own connection: refreshed when expiring, once per (principal, provider) across replicas.
  const refresh = async (principal: string, provider: OAuthProviderSettings, seen: OAuthCredential) =>
    store.withLock(
      lockName(principal, provider.id),
      { ttlMs: REFRESH_LOCK_MS, waitMs: REFRESH_LOCK_MS },
      async () => {
        // Another caller or replica may have refreshed while this one waited for the lock.
        const current = await vault.get(principal, provider.id);
        if (current === undefined) return connect(provider.id);
        if (current.kind !== 'oauth') return { kind: 'token', token: current.value } as const;
        if (current.accessToken !== seen.accessToken && usable(principal, provider.id, current)) {
          return { kind: 'token', token: current.accessToken } as const;
        }
        if (current.refreshToken === undefined) {
          await vault.delete(principal, provider.id);
          return connect(provider.id);
        }
        try {
          const config = await providerConfig(provider);
          const response = await requestRefresh(config, current.refreshToken, provider.resource);
          const next = credentialOf(response, now(), current);
          await vault.put(principal, provider.id, next);
          rejected.delete(`${principal}\n${provider.id}`);
          emit({ kind: 'refresh', provider: provider.id, outcome: 'ok' });
          return { kind: 'token', token: next.accessToken } as const;
        } catch (error) {
          if (oauthErrorCode(error) === 'invalid_grant') {
            // The provider no longer honours the refresh token (revoked, expired, rotated elsewhere): the
            // connection is dropped and the person asked to connect again.
            await vault.delete(principal, provider.id);
            emit({ kind: 'refresh', provider: provider.id, outcome: 'refused' });
            log({
              level: 'warn',
              code: 'REFRESH_REFUSED',
              message: `refresh of ${provider.id} refused; connection removed`,
              provider: provider.id,
              principal,
            });
            return connect(provider.id);
          }
          const mapped = mapOAuthError(error, 'PROVIDER_UNAVAILABLE', 'refresh', provider.id);
          emit({ kind: 'refresh', provider: provider.id, outcome: 'failed' });
          return refused(mapped);
        }
      },
    );

  const usable = (principal: string, provider: string, credential: OAuthCredential): boolean =>
    rejected.get(`${principal}\n${provider}`) !== credential.accessToken &&
    (credential.expiresAt === undefined || credential.expiresAt - EXPIRY_MARGIN_MS > now());

  const providerToken = async (
    principal: string,
    providerId: string,
  ): Promise<CredentialAnswer<{ kind: 'token'; token: string }>> => {
    const provider = providers.get(providerId);
    if (provider === undefined)
      return refused(new CredentialsError('CONNECT_REQUIRED', `no provider "${providerId}"`));
    const credential: Credential | undefined = await vault.get(principal, providerId);
    if (credential === undefined) return connect(providerId);
    if (credential.kind === 'secret') return { kind: 'token', token: credential.value };
    if (usable(principal, providerId, credential)) return { kind: 'token', token: credential.accessToken };
    if (provider.kind !== 'oauth') return connect(providerId);
    // Callers of this replica share one refresh; the store's lock makes it one across replicas.
    const key = `${principal}\n${providerId}`;
    let flight = refreshes.get(key);
    if (flight === undefined) {
      flight = refresh(principal, provider, credential).finally(() => refreshes.delete(key));
      refreshes.set(key, flight);
    }
    return flight;
  };

  const guard = async <T>(work: () => Promise<T>): Promise<T | ReturnType<typeof refused>> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CredentialsError) return refused(error);
      throw error;
    }
  };

  const flowOrThrow = async (id: string): Promise<ConnectFlow> => {
    const flow = await flows.peek(id);
    if (flow === undefined)
      throw new CredentialsError('FLOW_INVALID', 'this connect link is unknown, used or expired');
    return flow;
  };
  const requireCallback = (): string => {
    if (callbackUrl === undefined)
      throw new CredentialsError('FLOW_INVALID', 'credentials.connect.public_url is not set');
    return callbackUrl;
  };
  const providerRedirect = async (flow: ConnectFlow): Promise<string> => {
    const provider = oauthProvider(flow.provider);
    const url = await authorizationUrlOf(await providerConfig(provider), {
      redirectUri: requireCallback(),
      state: `${flow.id}.${flow.state}`,
      verifier: flow.verifier,
      scopes: provider.scopes,
      ...(provider.resource === undefined ? {} : { resource: provider.resource }),
    });
    return url.href;
  };
  const loginConfig = (): Promise<Configuration> => {
    const login = settings.login;
    if (login === undefined)
      throw new CredentialsError('FLOW_INVALID', 'credentials.connect.login is not configured');
    return configurationOf('login', () =>
      createClientConfiguration({
        name: 'connect login',
        server: { issuer: login.issuer },
        client: login,
        env,
      }),
    );
  };

  const headersFor: Credentials['headersFor'] = async (upstream, principal, accessToken) => {
    const auth = upstreams.get(upstream);
    if (auth === undefined) return { kind: 'headers', headers: {} };
    return guard(async () => {
      if (auth.kind === 'client_credentials') {
        return bearer(await clientCredentialsToken(upstream, auth.client));
      }
      if (auth.kind === 'token_exchange') {
        if (accessToken !== undefined)
          return bearer(await exchangedToken(upstream, auth, principal, accessToken));
        if (auth.exchange.staticPrincipals === 'client_credentials') {
          return bearer(await clientCredentialsToken(upstream, auth.exchange));
        }
        throw new CredentialsError(
          'STATIC_PRINCIPAL_DENIED',
          `${upstream} takes an OAuth caller's token (token exchange); this principal has none`,
          { provider: upstream },
        );
      }
      const answer = await providerToken(principal, auth.provider);
      if (answer.kind !== 'token') return answer;
      const headers =
        auth.header === undefined
          ? { Authorization: `Bearer ${answer.token}` }
          : { [auth.header]: answer.token };
      return { kind: 'headers', headers } as const;
    });
  };

  return {
    headersFor,

    async discoveryHeaders(upstream) {
      const auth = upstreams.get(upstream);
      const discovery = auth?.discovery;
      if (auth === undefined) return undefined;
      if (auth.kind === 'client_credentials')
        return bearer(await clientCredentialsToken(upstream, auth.client)).headers;
      if (discovery?.kind === 'headers') {
        return Object.fromEntries(
          Object.entries(discovery.headersFromEnv).map(([name, variable]) => [
            name,
            envValue(env, variable, `discovery header ${name} of ${upstream}`),
          ]),
        );
      }
      if (discovery?.kind === 'client_credentials') {
        return bearer(await clientCredentialsToken(`${upstream}#discovery`, discovery.client)).headers;
      }
      if (auth.kind !== 'provider') return undefined;
      // Listed through the first connected principal's connection (the list is the same for everyone).
      for (const entry of await vault.list()) {
        if (entry.provider !== auth.provider) continue;
        const answer = await headersFor(upstream, entry.principal);
        if (answer.kind === 'headers') return answer.headers;
      }
      return undefined;
    },

    async scriptEnv(skill, principal) {
      const out: Record<string, string> = {};
      for (const { entry, match } of scriptMatchers) {
        if (!match(skill)) continue;
        const answer = await guard(() => providerToken(principal, entry.provider));
        if (answer.kind !== 'token') return answer;
        out[entry.env] = answer.token;
      }
      return { kind: 'env', env: out };
    },

    async onUpstream401(upstream, principal, sent) {
      const auth = upstreams.get(upstream);
      if (auth === undefined) return;
      // The token that was refused: only it is dropped (a late 401 must not drop a token fetched since).
      const header = auth.kind === 'provider' && auth.header !== undefined ? auth.header : 'Authorization';
      const value = sent === undefined ? undefined : headerValue(sent, header);
      const refusedToken =
        value === undefined || header !== 'Authorization' ? value : value.replace(/^Bearer /, '');
      if (
        auth.kind === 'client_credentials' ||
        (auth.kind === 'token_exchange' && auth.exchange.staticPrincipals === 'client_credentials')
      ) {
        tokens.invalidate(`cc:${upstream}`, refusedToken);
      }
      if (auth.kind === 'token_exchange') tokens.invalidatePrefix(`x:${upstream}:${principal}\n`);
      if (auth.kind === 'provider') {
        const credential = refusedToken === undefined ? await vault.get(principal, auth.provider) : undefined;
        const token = refusedToken ?? (credential?.kind === 'oauth' ? credential.accessToken : undefined);
        if (token !== undefined) rejected.set(`${principal}\n${auth.provider}`, token);
      }
    },

    async startFlow(principal, provider) {
      if (!providers.has(provider))
        throw new CredentialsError('FLOW_INVALID', `no provider "${provider}"`, { provider });
      const base = settings.publicUrl;
      if (base === undefined)
        throw new CredentialsError('FLOW_INVALID', 'credentials.connect.public_url is not set');
      const flow = await flows.start(principal, provider);
      return {
        id: flow.id,
        url: new URL(`/connect/${flow.id}`, base).href,
        provider,
        expiresAt: flow.expiresAt,
      };
    },

    async flow(id) {
      const flow = await flows.peek(id);
      const provider = flow === undefined ? undefined : providers.get(flow.provider);
      if (flow === undefined || provider === undefined) return undefined;
      return {
        id: flow.id,
        principal: flow.principal,
        provider: flow.provider,
        kind: provider.kind,
        ...(provider.kind === 'secret' ? { label: provider.label } : {}),
        expiresAt: flow.expiresAt,
      };
    },

    async loginUrl(flowId) {
      const flow = await flowOrThrow(flowId);
      if (flow.login === undefined) throw new CredentialsError('FLOW_INVALID', 'this flow has no sign-in');
      const url = await authorizationUrlOf(await loginConfig(), {
        redirectUri: requireCallback(),
        state: `${flow.id}.${flow.login.state}`,
        verifier: flow.login.verifier,
        nonce: flow.login.nonce,
        scopes: ['openid'],
      });
      return url.href;
    },

    async authorizationUrl(flowId, principal) {
      const flow = await flowOrThrow(flowId);
      if (flow.principal !== principal) {
        throw new CredentialsError('FLOW_FORBIDDEN', 'this connect link was made for someone else', {
          provider: flow.provider,
        });
      }
      return providerRedirect(flow);
    },

    async completeCallback(callback) {
      const url = new URL(callback);
      const state = url.searchParams.get('state') ?? '';
      const dot = state.indexOf('.');
      const flow = dot > 0 ? await flows.peek(state.slice(0, dot)) : undefined;
      const secret = state.slice(dot + 1);
      if (flow === undefined)
        throw new CredentialsError('FLOW_INVALID', 'this callback is unknown, used or expired');
      if (flow.login !== undefined && secret === flow.login.state) {
        const { login } = flow;
        // Each sign-in state is single-use: the flow gets a new one before this one's code is redeemed (a
        // refused sign-in, someone else's, leaves the flow to its own principal).
        await flows.save({ ...flow, login: freshLogin() });
        let claims: Record<string, unknown> | undefined;
        try {
          const response = await redeemCallback(await loginConfig(), url, {
            state,
            verifier: login.verifier,
            nonce: login.nonce,
          });
          claims = response.claims();
        } catch (error) {
          throw mapOAuthError(error, 'CALLBACK_REFUSED', 'sign-in', 'auth.oauth.issuer');
        }
        const principal = claims === undefined ? undefined : options.loginPrincipal?.(claims);
        if (principal !== flow.principal) {
          throw new CredentialsError(
            'FLOW_FORBIDDEN',
            'signed in as someone else than the person this link was made for',
            {
              provider: flow.provider,
            },
          );
        }
        return { kind: 'login', flow: flow.id, redirect: await providerRedirect(flow) };
      }
      if (secret !== flow.state)
        throw new CredentialsError('FLOW_INVALID', 'this callback is unknown, used or expired');
      const provider = oauthProvider(flow.provider);
      const taken = await flows.take(flow);
      if (taken === undefined)
        throw new CredentialsError('FLOW_INVALID', 'this callback is unknown, used or expired');
      try {
        const response = await redeemCallback(await providerConfig(provider), url, {
          state,
          verifier: taken.verifier,
          ...(provider.resource === undefined ? {} : { resource: provider.resource }),
        });
        await vault.put(taken.principal, provider.id, credentialOf(response, now()));
        rejected.delete(`${taken.principal}\n${provider.id}`);
        emit({ kind: 'connect', provider: provider.id, outcome: 'ok' });
        return { kind: 'connected', principal: taken.principal, provider: provider.id };
      } catch (error) {
        const mapped = mapOAuthError(error, 'CALLBACK_REFUSED', 'authorization', provider.id);
        emit({
          kind: 'connect',
          provider: provider.id,
          outcome: mapped.code === 'CALLBACK_REFUSED' ? 'refused' : 'failed',
        });
        throw mapped;
      }
    },

    async storeSecret(flowId, principal, value) {
      const flow = await flowOrThrow(flowId);
      const provider = providers.get(flow.provider);
      if (flow.principal !== principal) {
        throw new CredentialsError('FLOW_FORBIDDEN', 'this connect link was made for someone else', {
          provider: flow.provider,
        });
      }
      if (provider?.kind !== 'secret')
        throw new CredentialsError('FLOW_INVALID', `${flow.provider} does not take a secret`);
      const trimmed = value.trim();
      // A header value may not hold control characters; the limit keeps a pasted file out.
      if (trimmed === '' || Buffer.byteLength(trimmed) > MAX_SECRET_BYTES || hasControl(trimmed)) {
        throw new CredentialsError(
          'FLOW_INVALID',
          `the secret must be 1-${MAX_SECRET_BYTES} bytes on one line`,
          { provider: provider.id },
        );
      }
      const taken = await flows.take(flow);
      if (taken === undefined)
        throw new CredentialsError('FLOW_INVALID', 'this connect link is unknown, used or expired');
      await vault.put(principal, provider.id, { kind: 'secret', value: trimmed, connectedAt: now() });
      emit({ kind: 'connect', provider: provider.id, outcome: 'ok' });
    },

    async connections(principal) {
      return (await vault.list(principal)).map(({ principal: p, provider, credential }) => {
        const expiresAt = credential.kind === 'oauth' ? credential.expiresAt : undefined;
        const lapsed =
          credential.kind === 'oauth' &&
          credential.refreshToken === undefined &&
          expiresAt !== undefined &&
          expiresAt <= now();
        return {
          principal: p,
          provider,
          state: lapsed ? 'expired' : 'connected',
          ...(expiresAt === undefined ? {} : { expiresAt }),
        };
      });
    },

    async disconnect(principal, providerId) {
      const credential = await vault.get(principal, providerId);
      const removed = await vault.delete(principal, providerId);
      rejected.delete(`${principal}\n${providerId}`);
      let revoked = false;
      const provider = providers.get(providerId);
      if (credential?.kind === 'oauth' && provider?.kind === 'oauth') {
        try {
          const config = await providerConfig(provider);
          // The refresh token first: revoking it ends the grant (RFC 7009 §2.1), the access token with it at most servers.
          if (credential.refreshToken !== undefined)
            revoked = await revoke(config, credential.refreshToken, 'refresh_token');
          revoked = (await revoke(config, credential.accessToken, 'access_token')) || revoked;
        } catch (error) {
          const mapped = mapOAuthError(error, 'PROVIDER_UNAVAILABLE', 'revocation', providerId);
          log({
            level: 'warn',
            code: 'REVOCATION_FAILED',
            message: mapped.message,
            provider: providerId,
            principal,
          });
        }
      }
      if (removed) emit({ kind: 'disconnect', provider: providerId, outcome: 'ok' });
      return { removed, revoked };
    },

    counts: () => store.counts(),
    requestState,
    close: () => store.close(),
  };
}

const headerValue = (headers: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

// A header value may not hold control characters (CR and LF least of all).
const hasControl = (value: string): boolean =>
  [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const bearer = (token: string) =>
  ({ kind: 'headers', headers: { Authorization: `Bearer ${token}` } }) as const;
