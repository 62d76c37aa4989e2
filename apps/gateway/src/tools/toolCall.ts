import type { ServerNotification } from '@modelcontextprotocol/server';
import type { Catalog, ToolTarget } from '@skillgate/skills';
import type { Audience } from '../disclosure/audience.js';
import type { UsageMark } from '../observability/usageCounter.js';
import type { CallProgress } from './callProgress.js';
import type { ConnectChannel } from './connectAnswer.js';
import type { UpstreamCallLabels } from './upstreamCaller.js';

/** What a tools/call handler needs of the request it serves: its abort signal and related notifications. */
export interface ToolCallContext {
  readonly signal: AbortSignal;
  notify(notification: ServerNotification): Promise<void>;
  /**
   * 2026-07-28, on the SDK's path: whether the request's envelope (lifted out of `_meta` by the SDK) declares URL
   * elicitation. Absent: read from the request's own `_meta` (the direct path keeps the envelope there).
   */
  readonly elicitsUrl?: boolean;
  /** 2026-07-28: the requestState a retry echoed, as it came (checked before anything runs). */
  readonly requestState?: string;
}

/** Sends tools/list_changed for a call that changed its caller's lists (toolsChanged.ts). */
export type ToolsChangedNotice = (call: ToolCall) => Promise<void>;

/**
 * One tools/call, from its name resolved once against one catalog snapshot to the labels its observers write:
 * every step (the disclosure decision, the kind's handler, metrics and the audit line) reads this value, never
 * the name again, so a reload during the call does not change what it runs. A class: an object literal with a
 * getter costs a runtime call per accessor to create, on every call; the signal is read only by calls that can
 * be cancelled (runs, upstream calls), and the direct paths make one only when it is asked for (lazyAbort.ts).
 */
export class ToolCall {
  /** The kind for the labels: the target's, or `unknown` when the name names nothing the caller may call. */
  kind: string;
  /** How the call ended for the labels: `ok`, `tool_error`, `locked`, an error code, or `error` until then. */
  outcome = 'error';
  /** Set by an upstream call: what the audit line and the upstream call metrics name. */
  upstream: UpstreamCallLabels | undefined;
  /** What a finished call adds to skill usage. */
  usage: UsageMark | undefined;
  /** Progress notifications, when the caller asked for them with a progressToken (callProgress.ts). */
  progress: CallProgress | undefined;
  /** Set when the call sent tools/list_changed: the result waits (bounded) for the re-list it caused. */
  heldUntilRelisted: (() => Promise<void>) | undefined;

  constructor(
    /** The called name, as the client sent it. */
    readonly name: string,
    /** The catalog snapshot the name was resolved in: the whole call runs against it. */
    readonly catalog: Catalog,
    /** What the name names in that catalog; undefined when it names nothing. */
    readonly target: ToolTarget | undefined,
    /** The arguments as the client sent them (validated by the resolve step, per kind). */
    readonly args: unknown,
    readonly audience: Audience,
    private readonly ctx: ToolCallContext,
    private readonly toolsChanged: ToolsChangedNotice,
    /** Whether the client declared URL elicitation (its session's initialize, or this request's envelope). */
    private readonly elicitsUrl: boolean,
  ) {
    this.kind = target?.kind ?? 'unknown';
  }

  /** How this caller is asked to connect an account (tools/connectAnswer.ts). */
  get connectChannel(): ConnectChannel {
    if (!this.elicitsUrl) return 'tool_error';
    return this.audience.era === 'legacy' ? 'url_elicitation_error' : 'input_required';
  }

  /** The request's abort signal. */
  get signal(): AbortSignal {
    return this.ctx.signal;
  }

  /** Sends a notification related to this request (so it travels on its response stream). */
  notify(notification: ServerNotification): Promise<void> {
    return this.ctx.notify(notification);
  }

  /** Sends tools/list_changed related to this request, and tells the caller's other sessions. */
  notifyToolsChanged(): Promise<void> {
    return this.toolsChanged(this);
  }
}
