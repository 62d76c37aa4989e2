import type { KeyRing } from '../keys/keyRing.js';
import type { CredentialStore } from './credentialStore.js';

/** A principal's OAuth connection to a provider. */
export interface OAuthCredential {
  readonly kind: 'oauth';
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch ms the access token expires; undefined: the provider said nothing. */
  readonly expiresAt?: number;
  readonly scope?: string;
  /** Epoch ms it was connected (first stored). */
  readonly connectedAt: number;
}

/** A principal's secret for a provider (typed on the connect page). */
export interface SecretCredential {
  readonly kind: 'secret';
  readonly value: string;
  readonly connectedAt: number;
}

/** What a record holds once opened. */
export type Credential = OAuthCredential | SecretCredential;

/** A record as listed: whose, for what, and its credential. */
export interface VaultEntry {
  readonly principal: string;
  readonly provider: string;
  readonly credential: Credential;
}

/** Why a record was not used: reported once per record to the log callback, never thrown. */
export type UnreadableRecord = (entry: { readonly principal: string; readonly provider: string }) => void;

/** The store seen through the key ring: credentials in, sealed records out, and back. */
export interface Vault {
  get(principal: string, provider: string): Promise<Credential | undefined>;
  put(principal: string, provider: string, credential: Credential): Promise<void>;
  delete(principal: string, provider: string): Promise<boolean>;
  list(principal?: string): Promise<readonly VaultEntry[]>;
}

// The record's context: a record copied under another principal or provider does not open.
const contextOf = (principal: string, provider: string): readonly string[] => ['record', principal, provider];

const isCredential = (value: unknown): value is Credential => {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  if (v.kind === 'secret') return typeof v.value === 'string';
  return v.kind === 'oauth' && typeof v.accessToken === 'string';
};

/** Seals what it stores and opens what it reads; a record sealed by an older key is sealed again when read. */
export function createVault(store: CredentialStore, ring: KeyRing, unreadable: UnreadableRecord): Vault {
  // Reported once per record and sealed text, so a bad record is one log line, not one per call.
  const reported = new Set<string>();

  const openRecord = (
    principal: string,
    provider: string,
    sealed: string,
  ): { credential: Credential; stale: boolean } | undefined => {
    const opened = ring.open(sealed, contextOf(principal, provider));
    let credential: unknown;
    try {
      credential = opened === undefined ? undefined : JSON.parse(opened.value.toString('utf8'));
    } catch {
      credential = undefined;
    }
    if (opened !== undefined && isCredential(credential)) return { credential, stale: opened.stale };
    const key = JSON.stringify([principal, provider, sealed.slice(-24)]);
    if (!reported.has(key)) {
      if (reported.size > 10_000) reported.clear();
      reported.add(key);
      unreadable({ principal, provider });
    }
    return undefined;
  };

  const seal = (principal: string, provider: string, credential: Credential): string =>
    ring.seal(JSON.stringify(credential), contextOf(principal, provider));

  return {
    async get(principal, provider) {
      const sealed = await store.get(principal, provider);
      if (sealed === undefined) return undefined;
      const opened = openRecord(principal, provider, sealed);
      if (opened === undefined) return undefined;
      if (opened.stale)
        await store.replace(principal, provider, sealed, seal(principal, provider, opened.credential));
      return opened.credential;
    },
    put(principal, provider, credential) {
      return store.put(principal, provider, seal(principal, provider, credential));
    },
    delete(principal, provider) {
      return store.delete(principal, provider);
    },
    async list(principal) {
      const out: VaultEntry[] = [];
      for (const record of await store.list(principal)) {
        const opened = openRecord(record.principal, record.provider, record.sealed);
        if (opened !== undefined)
          out.push({ principal: record.principal, provider: record.provider, credential: opened.credential });
      }
      return out;
    },
  };
}
