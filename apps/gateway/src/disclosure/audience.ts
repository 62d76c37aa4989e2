import type { Disclosure } from '@skillgate/skills';
import type { Principal } from '../auth/accessPolicy.js';

/** The protocol era of a request: 2025-era sessions (`initialize`) or 2026-07-28 per-request. */
export type Era = 'legacy' | 'modern';

/** Who is asking, as far as disclosure is concerned. */
export interface Audience {
  readonly era: Era;
  readonly disclosure: Disclosure;
  readonly principal: Principal;
  /** Where unlocks and jobs are kept: the session id, or `principal:<id>`. */
  readonly scopeKey: string;
  /** The legacy session id, for logs (none on 2026-07-28 requests). */
  readonly sessionId?: string;
  /**
   * Whether a 2025-era session's client declared URL elicitation at initialize (docs/credentials.md, "Asking
   * to connect"); a 2026-07-28 request says so in its own envelope instead.
   */
  readonly elicitsUrl?: boolean;
}
