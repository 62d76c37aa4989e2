import { createHash } from 'node:crypto';
import type { TokenEndpointResponse } from 'openid-client';
import { connectAnswer, refusedAnswer, type TokenAnswer } from '../answers.js';
import { CredentialsError } from '../credentialsError.js';
import type { ClientConfigurations } from '../oauth/clientConfigurations.js';
import { EXPIRY_MARGIN_MS } from '../oauth/tokenCache.js';
import { mapOAuthError, oauthErrorCode, requestRefresh } from '../oauth/tokenRequests.js';
import type { OAuthProviderSettings, ProviderSettings } from '../settings.js';
import type { CredentialStore } from '../store/credentialStore.js';
import type { OAuthCredential, Vault } from '../store/vault.js';
import type { CredentialsEvent, CredentialsLogEntry } from '../types.js';

/** A refresh holds its lock at most this long; waiters give up after as long. */
const REFRESH_LOCK_MS = 30_000;

/** The usable token of each principal's connection, refreshed when it expires. */
export interface ConnectionTokens {
  /** The access token or secret, refreshed first when it expires within 60 s or was refused. */
  token(principal: string, provider: string): Promise<TokenAnswer>;
  /** An upstream refused `accessToken`: the next token() refreshes once even if it has not expired. */
  reject(principal: string, provider: string, accessToken: string): void;
  /** Forgets a refusal (the connection was replaced or removed). */
  forget(principal: string, provider: string): void;
}

/** Options of createConnectionTokens. */
export interface ConnectionTokensOptions {
  readonly store: CredentialStore;
  readonly vault: Vault;
  readonly providers: ReadonlyMap<string, ProviderSettings>;
  readonly configurations: ClientConfigurations;
  readonly emit: (event: CredentialsEvent) => void;
  readonly log: (entry: CredentialsLogEntry) => void;
  readonly now: () => number;
}

/** An OAuth connection from a token endpoint's answer; what it leaves out is kept from the one it replaces. */
export function credentialOf(
  response: TokenEndpointResponse,
  now: number,
  previous?: OAuthCredential,
): OAuthCredential {
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
}

const keyOf = (principal: string, provider: string): string => `${principal}\n${provider}`;
const lockName = (principal: string, provider: string): string =>
  `refresh:${createHash('sha256')
    .update(JSON.stringify([principal, provider]))
    .digest('base64url')}`;

/**
 * Refreshes once per (principal, provider) at a time: callers of one replica share one refresh, and the store's
 * lock makes it one across replicas; whoever gets the lock reads the record again first, since another replica
 * may have refreshed meanwhile (with rotating refresh tokens, a second refresh would be refused and drop the
 * connection). A refused refresh (invalid_grant) deletes the connection.
 */
export function createConnectionTokens(options: ConnectionTokensOptions): ConnectionTokens {
  const { store, vault, providers, configurations, emit, log, now } = options;
  // Access tokens an upstream answered 401 to: refreshed on next use even if not yet expired.
  const rejected = new Map<string, string>();
  const refreshes = new Map<string, Promise<TokenAnswer>>();

  const usable = (principal: string, provider: string, credential: OAuthCredential): boolean =>
    rejected.get(keyOf(principal, provider)) !== credential.accessToken &&
    (credential.expiresAt === undefined || credential.expiresAt - EXPIRY_MARGIN_MS > now());

  const refreshed = async (
    principal: string,
    provider: OAuthProviderSettings,
    refreshToken: string,
    current: OAuthCredential,
  ): Promise<TokenAnswer> => {
    try {
      const response = await requestRefresh(
        await configurations.provider(provider),
        refreshToken,
        provider.resource,
      );
      const next = credentialOf(response, now(), current);
      await vault.put(principal, provider.id, next);
      rejected.delete(keyOf(principal, provider.id));
      emit({ kind: 'refresh', provider: provider.id, outcome: 'ok' });
      return { kind: 'token', token: next.accessToken };
    } catch (error) {
      if (oauthErrorCode(error) !== 'invalid_grant') {
        emit({ kind: 'refresh', provider: provider.id, outcome: 'failed' });
        return refusedAnswer(mapOAuthError(error, 'PROVIDER_UNAVAILABLE', 'refresh', provider.id));
      }
      // The provider no longer honours the refresh token (revoked, expired, reused): the connection is
      // dropped and the person asked to connect again.
      await vault.delete(principal, provider.id);
      emit({ kind: 'refresh', provider: provider.id, outcome: 'refused' });
      log({
        level: 'warn',
        code: 'REFRESH_REFUSED',
        message: `refresh of ${provider.id} refused; connection removed`,
        provider: provider.id,
        principal,
      });
      return connectAnswer(provider.id);
    }
  };

  const refresh = (principal: string, provider: OAuthProviderSettings, seen: OAuthCredential) =>
    store.withLock(
      lockName(principal, provider.id),
      { ttlMs: REFRESH_LOCK_MS, waitMs: REFRESH_LOCK_MS },
      async (): Promise<TokenAnswer> => {
        const current = await vault.get(principal, provider.id);
        if (current === undefined) return connectAnswer(provider.id);
        if (current.kind !== 'oauth') return { kind: 'token', token: current.value };
        // Refreshed by someone else while this caller waited: its token is used while it has not expired.
        const fresh = current.expiresAt === undefined || current.expiresAt > now();
        if (
          current.accessToken !== seen.accessToken &&
          fresh &&
          rejected.get(keyOf(principal, provider.id)) !== current.accessToken
        ) {
          return { kind: 'token', token: current.accessToken };
        }
        if (current.refreshToken === undefined) {
          await vault.delete(principal, provider.id);
          return connectAnswer(provider.id);
        }
        return refreshed(principal, provider, current.refreshToken, current);
      },
    );

  return {
    async token(principal, providerId) {
      const provider = providers.get(providerId);
      if (provider === undefined) {
        return refusedAnswer(new CredentialsError('CONNECT_REQUIRED', `no provider "${providerId}"`));
      }
      const credential = await vault.get(principal, providerId);
      if (credential === undefined) return connectAnswer(providerId);
      if (credential.kind === 'secret') return { kind: 'token', token: credential.value };
      if (usable(principal, providerId, credential)) return { kind: 'token', token: credential.accessToken };
      if (provider.kind !== 'oauth') return connectAnswer(providerId);
      const key = keyOf(principal, providerId);
      let flight = refreshes.get(key);
      if (flight === undefined) {
        flight = refresh(principal, provider, credential).finally(() => refreshes.delete(key));
        refreshes.set(key, flight);
      }
      return flight;
    },
    reject(principal, provider, accessToken) {
      rejected.set(keyOf(principal, provider), accessToken);
    },
    forget(principal, provider) {
      rejected.delete(keyOf(principal, provider));
    },
  };
}
