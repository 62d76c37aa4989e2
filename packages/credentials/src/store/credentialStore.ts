/** One sealed record of a principal's credential for a provider. */
export interface StoredRecord {
  readonly principal: string;
  readonly provider: string;
  /** The key ring's sealed text; the store never sees anything else. */
  readonly sealed: string;
}

/**
 * Where sealed records, pending connect flows and refresh locks live: one file on a single node, or Redis
 * shared by every replica. Every value is sealed before it reaches a store; a store holds no plaintext.
 */
export interface CredentialStore {
  get(principal: string, provider: string): Promise<string | undefined>;
  put(principal: string, provider: string, sealed: string): Promise<void>;
  /** Replaces a record only if it is still `expected` (re-sealing must not undo a refresh); true if replaced. */
  replace(principal: string, provider: string, expected: string, sealed: string): Promise<boolean>;
  /** True when a record was there. */
  delete(principal: string, provider: string): Promise<boolean>;
  /** Every record, or one principal's. */
  list(principal?: string): Promise<readonly StoredRecord[]>;
  /** Records per provider id. */
  counts(): Promise<Readonly<Record<string, number>>>;
  /**
   * Keeps a sealed flow for ttlMs under its id, and as the pending flow of `pendingKey` (principal + provider)
   * for as long. onlyIfPresent: only a flow still there is changed (a taken flow is never brought back).
   */
  putFlow(
    id: string,
    sealed: string,
    pendingKey: string,
    ttlMs: number,
    options?: { readonly onlyIfPresent?: boolean },
  ): Promise<void>;
  /** The pending flow id of a principal + provider key, if one has not expired. */
  pendingFlow(pendingKey: string): Promise<string | undefined>;
  /** Reads a flow without using it up. */
  peekFlow(id: string): Promise<string | undefined>;
  /** Reads and removes a flow at once: of concurrent takes, one gets it (Redis GETDEL). */
  takeFlow(id: string, pendingKey: string): Promise<string | undefined>;
  /**
   * Runs `work` holding the lock `name` (across replicas for Redis). A lock expires after ttlMs (a replica that
   * died holding it blocks no one for longer); waiting longer than waitMs for it throws STORE_UNAVAILABLE.
   */
  withLock<T>(
    name: string,
    options: { readonly ttlMs: number; readonly waitMs: number },
    work: () => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
}
