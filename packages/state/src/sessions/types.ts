import type { Disclosure } from '@skillgate/skills';

/** Stable codes of session store failures. */
export type SessionErrorCode = 'SESSION_LIMIT';

/** Client identity from the initialize request. */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
}

/** What the gateway keeps about one MCP session. Never a copy of the catalog. */
export interface SessionRecord {
  readonly id: string;
  readonly principal: string;
  readonly client: ClientInfo;
  /** MCP protocol revision negotiated at initialize (a replica rebuilding the session replays it). */
  readonly protocolVersion: string;
  /** Disclosure mode chosen at initialize (config default or a client profile). */
  readonly disclosure: Disclosure;
  /** Key that unlocks and jobs are stored under: the session id, or the principal when scope is `principal`. */
  readonly scopeKey: string;
  readonly createdAt: number;
  /**
   * Whose `sessions.max_per_principal` the session counts against, when not `principal`: an OAuth subject
   * across the grant sets its tokens carry (each grant set is a principal of its own).
   */
  readonly capKey?: string;
  /**
   * Whether the client declared URL elicitation at initialize (`capabilities.elicitation.url`): it is then
   * asked to connect an account with -32042 instead of a tool error (docs/credentials.md). Absent in records
   * written before it was kept: false.
   */
  readonly elicitsUrl?: boolean;
}

/** A session as one request sees it: its record and what its scope has unlocked, read together. */
export interface TouchedSession {
  readonly record: SessionRecord;
  readonly unlocked: ReadonlySet<string>;
}

/**
 * A cap on what the skills unlocked under one scope may add to its tools/list (docs/disclosure.md, the cap):
 * an unlock that would pass it drops the least recently used unlocked skills first.
 */
export interface UnlockLimit {
  /** Most tools the unlocked skills may add together. */
  readonly budget: number;
  /** Tools each skill adds to the list when unlocked; a skill not named adds none. */
  readonly costs: ReadonlyMap<string, number>;
}

/** What an unlock did. */
export interface UnlockOutcome {
  /** The skill was not unlocked before. */
  readonly added: boolean;
  /** Skills dropped to keep the scope within its UnlockLimit, least recently used first. */
  readonly dropped: readonly string[];
}

/** Options of the in-memory store, from the `sessions` config section. */
export interface MemorySessionStoreOptions {
  /** Idle time after which a session expires. */
  readonly ttlMs: number;
  readonly maxSessions: number;
  readonly maxPerPrincipal: number;
  /** Called once for every session that expires (not for delete()); the store no longer holds it then. */
  readonly onExpire?: (record: SessionRecord) => void;
  /** The clock idle times are read from (ms); default Date.now. */
  readonly now?: () => number;
}

/**
 * Per-session state behind an async interface, so that a shared store (Redis, ...) can replace
 * the in-memory one without touching the gateway.
 */
export interface SessionStore {
  /**
   * Adds a session; rejects with SESSION_LIMIT when the store is full. At the principal's cap it ends that
   * principal's longest-idle session instead (as delete() would) and returns it, for the caller to close.
   */
  create(record: SessionRecord): Promise<SessionRecord | undefined>;
  /** Returns the session and refreshes its idle timer; undefined when unknown or expired. */
  get(id: string): Promise<SessionRecord | undefined>;
  /** get() plus the skills unlocked under the session's scope key, refreshing both idle timers, in one step. */
  touch(id: string): Promise<TouchedSession | undefined>;
  /** Ends a session; true when it existed. Does not call onExpire. */
  delete(id: string): Promise<boolean>;
  /**
   * Records a skill as unlocked under scopeKey and as its most recently used one; with a limit, then drops the
   * least recently used other skills until the unlocked ones fit it (atomically).
   */
  unlock(scopeKey: string, skill: string, limit?: UnlockLimit): Promise<UnlockOutcome>;
  /** Marks an unlocked skill as the scope's most recently used (nothing when it is not unlocked). */
  use(scopeKey: string, skill: string): Promise<void>;
  /** The skills unlocked under scopeKey, least recently used first (empty when none). */
  unlocked(scopeKey: string): Promise<ReadonlySet<string>>;
  /** Drops skills that no longer exist from every scope; returns the scope keys that changed. */
  forget(skills: ReadonlySet<string>): Promise<readonly string[]>;
  /** Sessions open now. */
  count(): Promise<number>;
  /** The `limit` most recently used open sessions, newest first (the operator page; bounded by limit). */
  recent(limit: number): Promise<readonly SessionRecord[]>;
  /** Stops timers; the store is unusable afterwards. */
  close(): Promise<void>;
}
