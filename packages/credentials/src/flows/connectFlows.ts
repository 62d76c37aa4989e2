import { createHash, randomBytes } from 'node:crypto';
import { randomNonce, randomPKCECodeVerifier, randomState } from 'openid-client';
import type { KeyRing } from '../keys/keyRing.js';
import type { CredentialStore } from '../store/credentialStore.js';

/** A flow lives this long: a person has 10 minutes from the link to connected (docs/credentials.md). */
export const FLOW_TTL_MS = 10 * 60_000;

/** A pending connect flow: who it is for, what it connects, and the secrets of its redirects. */
export interface ConnectFlow {
  readonly id: string;
  readonly principal: string;
  readonly provider: string;
  /** Epoch ms. */
  readonly expiresAt: number;
  /** The random half of the provider redirect's `state` (the whole is `<id>.<state>`). */
  readonly state: string;
  /** PKCE S256 verifier of the provider redirect. */
  readonly verifier: string;
  /** The sign-in at auth.oauth.issuer that binds a browser to an OAuth principal, until it is done. */
  readonly login?: { readonly state: string; readonly verifier: string; readonly nonce: string };
}

/** Connect flows sealed in the store: single-use, bound to their principal, expiring after FLOW_TTL_MS. */
export interface ConnectFlows {
  /** The principal's pending flow for the provider, or a new one. */
  start(principal: string, provider: string): Promise<ConnectFlow>;

  /** Reads a live flow without using it up. */
  peek(id: string): Promise<ConnectFlow | undefined>;
  /** Uses a flow up: of concurrent takes (any replica), one gets it. */
  take(flow: ConnectFlow): Promise<ConnectFlow | undefined>;
  /** Stores a changed flow (a new sign-in state) for the rest of its life, if it was not taken meanwhile. */
  save(flow: ConnectFlow): Promise<void>;
}

/** New secrets for a flow's sign-in redirect. */
export const freshLogin = (): NonNullable<ConnectFlow['login']> => ({
  state: randomState(),
  verifier: randomPKCECodeVerifier(),
  nonce: randomNonce(),
});

const pendingKeyOf = (principal: string, provider: string): string =>
  createHash('sha256')
    .update(JSON.stringify([principal, provider]))
    .digest('base64url');

const contextOf = (id: string): readonly string[] => ['flow', id];

const isFlow = (value: unknown, id: string): value is ConnectFlow =>
  value !== null &&
  typeof value === 'object' &&
  (value as { id?: unknown }).id === id &&
  typeof (value as { principal?: unknown }).principal === 'string' &&
  typeof (value as { provider?: unknown }).provider === 'string' &&
  typeof (value as { expiresAt?: unknown }).expiresAt === 'number';

/** Flows over a store and key ring (flows hold PKCE verifiers, so they are sealed like records). */
export function createConnectFlows(
  store: CredentialStore,
  ring: KeyRing,
  options: { readonly now?: () => number; readonly withLogin: boolean },
): ConnectFlows {
  const now = options.now ?? Date.now;

  const open = (id: string, sealed: string | undefined): ConnectFlow | undefined => {
    if (sealed === undefined) return undefined;
    const opened = ring.open(sealed, contextOf(id));
    if (opened === undefined) return undefined;
    try {
      const flow = JSON.parse(opened.value.toString('utf8')) as unknown;
      return isFlow(flow, id) && flow.expiresAt > now() ? flow : undefined;
    } catch {
      return undefined;
    }
  };

  const peek = async (id: string): Promise<ConnectFlow | undefined> => {
    // Ids are 22 base64url characters; anything else was never handed out (and is not sent to the store).
    if (!/^[A-Za-z0-9_-]{22}$/.test(id)) return undefined;
    return open(id, await store.peekFlow(id));
  };

  const save = async (flow: ConnectFlow, onlyIfPresent: boolean): Promise<void> => {
    const ttl = flow.expiresAt - now();
    if (ttl <= 0) return;
    await store.putFlow(
      flow.id,
      ring.seal(JSON.stringify(flow), contextOf(flow.id)),
      pendingKeyOf(flow.principal, flow.provider),
      ttl,
      { onlyIfPresent },
    );
  };

  return {
    async start(principal, provider) {
      const pendingId = await store.pendingFlow(pendingKeyOf(principal, provider));
      if (pendingId !== undefined) {
        const pending = await peek(pendingId);
        if (pending !== undefined && pending.principal === principal && pending.provider === provider)
          return pending;
      }
      const flow: ConnectFlow = {
        id: randomBytes(16).toString('base64url'),
        principal,
        provider,
        expiresAt: now() + FLOW_TTL_MS,
        state: randomState(),
        verifier: randomPKCECodeVerifier(),
        ...(options.withLogin ? { login: freshLogin() } : {}),
      };
      await save(flow, false);
      return flow;
    },
    peek,
    async take(flow) {
      return open(flow.id, await store.takeFlow(flow.id, pendingKeyOf(flow.principal, flow.provider)));
    },
    save: (flow) => save(flow, true),
  };
}
