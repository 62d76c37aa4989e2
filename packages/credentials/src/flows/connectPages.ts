import { credentialOf } from '../connections/connectionTokens.js';
import { CredentialsError } from '../credentialsError.js';
import type { ClientConfigurations } from '../oauth/clientConfigurations.js';
import { authorizationUrlOf, mapOAuthError, redeemCallback } from '../oauth/tokenRequests.js';
import type { OAuthProviderSettings, ProviderSettings } from '../settings.js';
import type { Vault } from '../store/vault.js';
import type { Credentials, CredentialsEvent } from '../types.js';
import { type ConnectFlow, type ConnectFlows, freshLogin } from './connectFlows.js';
import { createSignIns } from './signIns.js';

/** Largest secret a person may store (a header value must stay well within any server's header limits). */
const MAX_SECRET_BYTES = 8192;

/** What the connect pages call: flows, their redirects and callback, and a secret provider's form. */
export type ConnectPages = Pick<
  Credentials,
  | 'startFlow'
  | 'flow'
  | 'loginUrl'
  | 'startSignIn'
  | 'isSignInCallback'
  | 'completeSignIn'
  | 'authorizationUrl'
  | 'authorizationOrigin'
  | 'callbackOf'
  | 'completeCallback'
  | 'storeSecret'
>;

/** Options of createConnectPages. */
export interface ConnectPagesOptions {
  readonly flows: ConnectFlows;
  readonly vault: Vault;
  readonly providers: ReadonlyMap<string, ProviderSettings>;
  readonly configurations: ClientConfigurations;
  /** The origin of /connect links and /connect/callback. */
  readonly publicUrl: string | undefined;
  readonly loginPrincipal: ((claims: Readonly<Record<string, unknown>>) => string | undefined) | undefined;
  /** A connection was stored (a refusal of its predecessor is forgotten). */
  readonly connected: (principal: string, provider: string) => void;
  readonly emit: (event: CredentialsEvent) => void;
  readonly now: () => number;
}

const unknownFlow = (): CredentialsError =>
  new CredentialsError('FLOW_INVALID', 'this connect link or callback is unknown, used or expired');

// A header value may not hold control characters (CR and LF least of all).
const hasControl = (value: string): boolean =>
  [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/** A secret as typed on the page, trimmed; refused when empty, too long or not one line. */
function typedSecret(value: string, provider: string): string {
  const trimmed = value.trim();
  // The limit keeps a pasted file out.
  if (trimmed === '' || Buffer.byteLength(trimmed) > MAX_SECRET_BYTES || hasControl(trimmed)) {
    throw new CredentialsError('FLOW_INVALID', `the secret must be 1-${MAX_SECRET_BYTES} bytes on one line`, {
      provider,
    });
  }
  return trimmed;
}

/** Where an OAuth provider's authorization endpoint is (its metadata's, or the configured one). */
async function authorizationOriginOf(
  provider: ProviderSettings | undefined,
  configurations: ClientConfigurations,
): Promise<string | undefined> {
  if (provider?.kind !== 'oauth') return undefined;
  const endpoint = (await configurations.provider(provider)).serverMetadata().authorization_endpoint;
  return endpoint === undefined ? undefined : new URL(endpoint).origin;
}

/**
 * The connect flow from link to stored connection. The page binds the browser to the flow's principal first
 * (an OAuth principal signs in at auth.oauth.issuer and must come back as itself; a static-token principal
 * types its token, which the gateway checks) and only then is sent to the provider. The provider's `state`
 * is `<flow id>.<random>`: the callback finds its flow by it, and a flow is taken (used up) before its code is
 * redeemed, so a callback never works twice.
 */
export function createConnectPages(options: ConnectPagesOptions): ConnectPages {
  const { flows, vault, providers, configurations, emit, now } = options;

  const flowOrThrow = async (id: string): Promise<ConnectFlow> => {
    const flow = await flows.peek(id);
    if (flow === undefined) throw unknownFlow();
    return flow;
  };
  const publicUrl = (): string => {
    if (options.publicUrl === undefined) {
      throw new CredentialsError('FLOW_INVALID', 'credentials.connect.public_url is not set');
    }
    return options.publicUrl;
  };
  const callbackUrl = (): string => new URL('/connect/callback', publicUrl()).href;
  // A code is redeemed with the redirect_uri its authorization request named, public_url's callback, never
  // the address the callback reached this replica at (behind a TLS-terminating proxy that is http://, and a
  // replica's own port is not the public one): the provider refuses a code whose redirect_uri differs.
  const atCallbackUrl = (callback: string): URL => {
    const url = new URL(callbackUrl());
    url.search = new URL(callback).search;
    return url;
  };
  const oauthProvider = (id: string): OAuthProviderSettings => {
    const provider = providers.get(id);
    if (provider?.kind !== 'oauth') {
      throw new CredentialsError('FLOW_INVALID', `no OAuth provider "${id}"`, { provider: id });
    }
    return provider;
  };
  const bound = (flow: ConnectFlow, principal: string | undefined, why: string): void => {
    if (principal !== flow.principal)
      throw new CredentialsError('FLOW_FORBIDDEN', why, { provider: flow.provider });
  };
  const providerRedirect = async (flow: ConnectFlow): Promise<string> => {
    const provider = oauthProvider(flow.provider);
    const url = await authorizationUrlOf(await configurations.provider(provider), {
      redirectUri: callbackUrl(),
      state: `${flow.id}.${flow.state}`,
      verifier: flow.verifier,
      scopes: provider.scopes,
      ...(provider.resource === undefined ? {} : { resource: provider.resource }),
    });
    return url.href;
  };

  const signIns = createSignIns({ configurations, callbackUrl, loginPrincipal: options.loginPrincipal });
  const loginUrlOf = async (flowId: string): Promise<string> => signIns.urlOf(await flowOrThrow(flowId));

  // The sign-in that binds the browser: each of its states is single-use, and the flow gets a new one before
  // this one's code is redeemed (someone else's sign-in leaves the flow to its own principal).
  const completeLogin = async (
    flow: ConnectFlow,
    login: NonNullable<ConnectFlow['login']>,
    url: URL,
    state: string,
  ) => {
    await flows.save({ ...flow, login: freshLogin() });
    const principal = await signIns.principalOf(login, url, state);
    bound(flow, principal, 'signed in as someone else than the person this link was made for');
    return { kind: 'login', flow: flow.id, redirect: await providerRedirect(flow) } as const;
  };

  const completeProvider = async (flow: ConnectFlow, url: URL, state: string) => {
    const provider = oauthProvider(flow.provider);
    const taken = await flows.take(flow);
    if (taken === undefined) throw unknownFlow();
    try {
      const response = await redeemCallback(await configurations.provider(provider), url, {
        state,
        verifier: taken.verifier,
        ...(provider.resource === undefined ? {} : { resource: provider.resource }),
      });
      await vault.put(taken.principal, provider.id, credentialOf(response, now()));
    } catch (error) {
      const mapped = mapOAuthError(error, 'CALLBACK_REFUSED', 'authorization', provider.id);
      emit({
        kind: 'connect',
        provider: provider.id,
        outcome: mapped.code === 'CALLBACK_REFUSED' ? 'refused' : 'failed',
      });
      throw mapped;
    }
    options.connected(taken.principal, provider.id);
    emit({ kind: 'connect', provider: provider.id, outcome: 'ok' });
    return { kind: 'connected', principal: taken.principal, provider: provider.id } as const;
  };

  const flowView: ConnectPages['flow'] = async (id) => {
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
  };

  return {
    async startFlow(principal, provider) {
      if (!providers.has(provider)) {
        throw new CredentialsError('FLOW_INVALID', `no provider "${provider}"`, { provider });
      }
      const base = publicUrl();
      const flow = await flows.start(principal, provider);
      return {
        id: flow.id,
        url: new URL(`/connect/${flow.id}`, base).href,
        provider,
        expiresAt: flow.expiresAt,
      };
    },

    async callbackOf(callback) {
      const state = new URL(callback).searchParams.get('state') ?? '';
      const dot = state.indexOf('.');
      const flow = dot > 0 ? await flows.peek(state.slice(0, dot)) : undefined;
      if (flow === undefined) return undefined;
      const secret = state.slice(dot + 1);
      const kind =
        flow.login !== undefined && secret === flow.login.state
          ? ('login' as const)
          : secret === flow.state
            ? ('authorization' as const)
            : undefined;
      const view = kind === undefined ? undefined : await flowView(flow.id);
      return kind === undefined || view === undefined ? undefined : { kind, flow: view };
    },

    flow: flowView,

    loginUrl: loginUrlOf,

    startSignIn: async () => {
      if (options.loginPrincipal === undefined) {
        throw new CredentialsError('FLOW_INVALID', 'credentials.connect.login is not set');
      }
      return signIns.start();
    },
    isSignInCallback: (callback) => signIns.isCallback(new URL(callback)),
    async completeSignIn(callback, secrets) {
      const principal = await signIns.complete(atCallbackUrl(callback), secrets);
      if (principal === undefined) {
        throw new CredentialsError('FLOW_FORBIDDEN', 'the sign-in named no person this gateway serves');
      }
      return principal;
    },

    async authorizationUrl(flowId, principal) {
      const flow = await flowOrThrow(flowId);
      bound(flow, principal, 'this connect link was made for someone else');
      return providerRedirect(flow);
    },

    authorizationOrigin: (provider) => authorizationOriginOf(providers.get(provider), configurations),

    async completeCallback(callback) {
      const url = atCallbackUrl(callback);
      const state = url.searchParams.get('state') ?? '';
      const dot = state.indexOf('.');
      const flow = dot > 0 ? await flows.peek(state.slice(0, dot)) : undefined;
      const secret = state.slice(dot + 1);
      if (flow === undefined) throw unknownFlow();
      if (flow.login !== undefined && secret === flow.login.state) {
        return completeLogin(flow, flow.login, url, state);
      }
      if (secret !== flow.state) throw unknownFlow();
      return completeProvider(flow, url, state);
    },

    async storeSecret(flowId, principal, value) {
      const flow = await flowOrThrow(flowId);
      bound(flow, principal, 'this connect link was made for someone else');
      const provider = providers.get(flow.provider);
      if (provider?.kind !== 'secret') {
        throw new CredentialsError('FLOW_INVALID', `${flow.provider} does not take a secret`);
      }
      const trimmed = typedSecret(value, provider.id);
      if ((await flows.take(flow)) === undefined) throw unknownFlow();
      await vault.put(principal, provider.id, { kind: 'secret', value: trimmed, connectedAt: now() });
      options.connected(principal, provider.id);
      emit({ kind: 'connect', provider: provider.id, outcome: 'ok' });
    },
  };
}
