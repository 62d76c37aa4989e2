import { randomBytes } from 'node:crypto';
import picomatch from 'picomatch';
import { answering, bearerAnswer } from './answers.js';
import { createConnectionTokens } from './connections/connectionTokens.js';
import { CredentialsError } from './credentialsError.js';
import { createConnectFlows } from './flows/connectFlows.js';
import { createConnectPages } from './flows/connectPages.js';
import { createRequestStateCodec } from './flows/requestState.js';
import { createKeyRing, loadKeys } from './keys/keyRing.js';
import { envValue } from './oauth/clientConfiguration.js';
import { createClientConfigurations } from './oauth/clientConfigurations.js';
import { createGatewayTokens } from './oauth/gatewayTokens.js';
import { mapOAuthError, revoke } from './oauth/tokenRequests.js';
import type { ProviderSettings, UpstreamAuth } from './settings.js';
import type { CredentialStore } from './store/credentialStore.js';
import { defaultCredentialsFile } from './store/defaultCredentialsFile.js';
import { createFileStore } from './store/fileStore.js';
import { createRedisStore } from './store/redisStore.js';
import { createVault } from './store/vault.js';
import type { Credentials, CredentialsOptions } from './types.js';

const headerValue = (headers: Readonly<Record<string, string>>, name: string): string | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

/**
 * Builds the credentials service from its settings; reads the keys now (KEY_INVALID stops the start). It
 * composes the parts, each with one job: the sealed store (vault), the principals' connections and their
 * refresh (connections/), the gateway's own tokens (oauth/gatewayTokens.ts) and the connect pages (flows/).
 */
export function createCredentials(options: CredentialsOptions): Credentials {
  const { settings, env } = options;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const emit = options.onEvent ?? (() => {});
  // Without providers nothing is ever sealed for later (no connection, flow or requestState): upstreams with
  // only token exchange or client credentials need no configured key, and get one that lives with the process.
  const ring = createKeyRing(
    settings.keys.length === 0 && settings.providers.length === 0
      ? [{ id: 'process', key: randomBytes(32) }]
      : loadKeys(settings.keys, env),
  );
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
  const providers = new Map<string, ProviderSettings>(settings.providers.map((p) => [p.id, p]));
  const upstreams = new Map<string, UpstreamAuth>(settings.upstreams.map((u) => [u.upstream, u]));
  const configurations = createClientConfigurations(env, settings.login);
  const gatewayTokens = createGatewayTokens({ configurations, emit, now });
  const connections = createConnectionTokens({ store, vault, providers, configurations, emit, log, now });
  const pages = createConnectPages({
    flows: createConnectFlows(store, ring, { now, withLogin: settings.login !== undefined }),
    vault,
    providers,
    configurations,
    publicUrl: settings.publicUrl,
    loginPrincipal: options.loginPrincipal,
    connected: (principal, provider) => connections.forget(principal, provider),
    emit,
    now,
  });
  const scriptMatchers = settings.scripts.map((entry) => ({
    entry,
    match: picomatch(entry.skills as string[], { dot: true }),
  }));

  function createStore(): CredentialStore {
    if (settings.store === 'file') {
      return createFileStore({ path: settings.file ?? defaultCredentialsFile(env), now });
    }
    if (options.redis === undefined) {
      throw new CredentialsError('STORE_UNAVAILABLE', 'credentials.store redis needs a Redis connection');
    }
    return createRedisStore({ redis: options.redis });
  }

  const headersFor: Credentials['headersFor'] = async (upstream, principal, accessToken) => {
    const auth = upstreams.get(upstream);
    if (auth === undefined) return { kind: 'headers', headers: {} };
    return answering(async () => {
      if (auth.kind === 'client_credentials') {
        return bearerAnswer(await gatewayTokens.clientCredentials(upstream, auth.client));
      }
      if (auth.kind === 'token_exchange') {
        if (accessToken !== undefined) {
          return bearerAnswer(await gatewayTokens.exchanged(upstream, auth.exchange, principal, accessToken));
        }
        if (auth.exchange.staticPrincipals === 'client_credentials') {
          return bearerAnswer(await gatewayTokens.clientCredentials(upstream, auth.exchange));
        }
        throw new CredentialsError(
          'STATIC_PRINCIPAL_DENIED',
          `${upstream} takes an OAuth caller's token (token exchange); this principal has none`,
          { provider: upstream },
        );
      }
      const answer = await connections.token(principal, auth.provider);
      if (answer.kind !== 'token') return answer;
      // The default header is a Bearer token; a header of the config's own gets the raw value (an API key).
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
      if (auth === undefined) return undefined;
      const discovery = auth.discovery;
      if (auth.kind === 'client_credentials') {
        return bearerAnswer(await gatewayTokens.clientCredentials(upstream, auth.client)).headers;
      }
      if (discovery?.kind === 'headers') {
        return Object.fromEntries(
          Object.entries(discovery.headersFromEnv).map(([name, variable]) => [
            name,
            envValue(env, variable, `discovery header ${name} of ${upstream}`),
          ]),
        );
      }
      if (discovery?.kind === 'client_credentials') {
        return bearerAnswer(await gatewayTokens.clientCredentials(`${upstream}#discovery`, discovery.client))
          .headers;
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
      const env: Record<string, string> = {};
      for (const { entry, match } of scriptMatchers) {
        if (!match(skill)) continue;
        const answer = await answering(() => connections.token(principal, entry.provider));
        if (answer.kind !== 'token') return answer;
        env[entry.env] = answer.token;
      }
      return { kind: 'env', env };
    },

    async onUpstream401(upstream, principal, sent) {
      const auth = upstreams.get(upstream);
      if (auth === undefined) return;
      // The token that was refused: only it is dropped (a late 401 must not drop a token fetched since).
      const header = auth.kind === 'provider' && auth.header !== undefined ? auth.header : 'Authorization';
      const value = sent === undefined ? undefined : headerValue(sent, header);
      const refused =
        value === undefined || header !== 'Authorization' ? value : value.replace(/^Bearer /, '');
      if (auth.kind === 'client_credentials' || auth.kind === 'token_exchange') {
        gatewayTokens.dropClientCredentials(upstream, refused);
      }
      if (auth.kind === 'token_exchange') gatewayTokens.dropExchanged(upstream, principal);
      if (auth.kind === 'provider') {
        const credential = refused === undefined ? await vault.get(principal, auth.provider) : undefined;
        const token = refused ?? (credential?.kind === 'oauth' ? credential.accessToken : undefined);
        if (token !== undefined) connections.reject(principal, auth.provider, token);
      }
    },

    ...pages,

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
      connections.forget(principal, providerId);
      let revoked = false;
      const provider = providers.get(providerId);
      if (credential?.kind === 'oauth' && provider?.kind === 'oauth') {
        try {
          const config = await configurations.provider(provider);
          // The refresh token first: revoking it ends the grant (RFC 7009 §2.1), and at most servers the
          // access tokens with it.
          if (credential.refreshToken !== undefined) {
            revoked = await revoke(config, credential.refreshToken, 'refresh_token');
          }
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
    requestState: createRequestStateCodec(ring, now),
    close: () => store.close(),
  };
}
