import type { UpstreamSnapshot } from '@skillgate/skills';
import type { CallEnd } from './calls/callEnd.js';

/** Why a call failed; each becomes `structuredContent.reason` of a tool error. */
export type UpstreamFailureReason =
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_ERROR'
  | 'RESULT_TOO_LARGE'
  /** The upstream answered HTTP 401 to a call's own credential (UpstreamCallOptions.headers). */
  | 'UPSTREAM_UNAUTHORIZED';

/** A call's answer: the upstream's result, or why there is none. Never thrown. */
export type UpstreamCallResult =
  | {
      readonly ok: true;
      readonly result: { content: unknown[]; structuredContent?: unknown; isError?: boolean };
    }
  | { readonly ok: false; readonly reason: UpstreamFailureReason; readonly message: string };

/** A progress notification of the upstream, passed on to the caller. */
export interface UpstreamProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** Per-call options of UpstreamPool.call. */
export interface UpstreamCallOptions {
  /** Whose call it is: one principal holds at most max_concurrent_per_principal of the upstream's slots. */
  readonly principal?: string;
  /** Aborting it cancels the call at the upstream (notifications/cancelled). */
  readonly signal?: AbortSignal;
  /** Given, the upstream is asked for progress and each notification is passed here. */
  readonly onProgress?: (progress: UpstreamProgress) => void;
  /** More `_meta` entries for the upstream's request, such as the W3C trace context (`traceparent`). */
  readonly meta?: Readonly<Record<string, string>>;
  /**
   * The caller's own credential for a `perCaller` upstream: sent instead of the connection's headers, on the
   * caller's own session where the upstream keeps sessions (never one another principal opened).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** `upstreams[].sandbox`: the network and the host paths a sandboxed stdio server gets. */
export interface UpstreamSandbox {
  readonly network: boolean;
  /** Mounted read-only at their own paths. */
  readonly read: readonly string[];
  /** Mounted writable at their own paths. */
  readonly write: readonly string[];
}

/** One upstream, as configured (the gateway maps its config onto this). */
export interface UpstreamDefinition {
  readonly id: string;
  /** Streamable HTTP endpoint; exactly one of url and command. */
  readonly url?: string;
  /** argv of a stdio server. */
  readonly command?: readonly string[];
  /** Header name -> environment variable holding its whole value (HTTP). */
  readonly headersFromEnv?: Readonly<Record<string, string>>;
  /** Child variable -> gateway variable (stdio). */
  readonly envFrom?: Readonly<Record<string, string>>;
  /** What a sandboxed stdio server may reach beyond its program (docs/sandbox.md, "Stdio upstreams"). */
  readonly sandbox?: UpstreamSandbox;
  readonly description?: string;
  readonly skill: 'auto' | 'none';
  /** Globs of the upstream's tool names that are exposed at all. */
  readonly tools: readonly string[];
  readonly timeoutSeconds: number;
  readonly maxConcurrent: number;
  /** Slots one principal may hold at once (capped at maxConcurrent). */
  readonly maxConcurrentPerPrincipal: number;
  readonly maxResultBytes: number;
  /** Bounds of its tool listing (docs/limits.md); defaults apply when left out. */
  readonly listing?: ListingBounds;
  /**
   * Calls carry each caller's credential (UpstreamCallOptions.headers; docs/credentials.md): the connection
   * lists the tools with the pool's `connectionHeaders` instead of `headersFromEnv`.
   */
  readonly perCaller?: boolean;
}

/** How much of an upstream's tools/list the gateway keeps. */
export interface ListingBounds {
  /** Most tools kept, in listing order; the rest are dropped and reported. */
  readonly maxTools: number;
  /** Largest input plus output schema of one tool (JSON bytes); a larger tool is dropped and reported. */
  readonly maxSchemaBytes: number;
  /** Longest description kept (UTF-8 bytes); a longer one is cut. */
  readonly maxDescriptionBytes: number;
}

/** A line the pool wants logged (the gateway passes its logger in). */
export interface UpstreamLogger {
  info(fields: Readonly<Record<string, unknown>>, message: string): void;
  warn(fields: Readonly<Record<string, unknown>>, message: string): void;
}

/** Options of createUpstreamPool. */
export interface UpstreamPoolOptions {
  readonly upstreams: readonly UpstreamDefinition[];
  /** Where credentials come from (the gateway's environment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory of stdio servers (the gateway's). */
  readonly cwd: string;
  /** bwrap's path when stdio servers run in the script sandbox (found working by the runner's probe). */
  readonly bwrap?: string;
  readonly logger?: UpstreamLogger;
  /** Retry delays in ms: first, and the cap it doubles up to (default 1000 and 60000). */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Bytes of one stdio server's stderr logged per minute, the rest dropped with a note (default 65536). */
  readonly stderrBytesPerMinute?: number;
  /**
   * More secret values (the gateway's tokens, OAuth client credentials) replaced, like every configured
   * header and env_from value, in anything an upstream returns.
   */
  readonly secrets?: readonly string[];
  /** Kept as the client's name towards upstreams. */
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /**
   * The headers a `perCaller` upstream's connection lists its tools with (a discovery credential, or a
   * connected principal's), asked at each connect attempt; undefined: none.
   */
  readonly connectionHeaders?: (upstream: string) => Promise<Readonly<Record<string, string>> | undefined>;
}

/** The connections to every configured upstream, driven by the gateway. */
export interface UpstreamPool {
  /** Connects every upstream (concurrently) and waits for each first attempt; never throws for one dead upstream. */
  start(): Promise<void>;
  /** Every upstream's current state and tools, in config order. */
  snapshots(): readonly UpstreamSnapshot[];
  /** Calls listener with the id whenever an upstream's tools or state changed; returns the unsubscribe. */
  onChange(listener: (id: string) => void): () => void;
  /** Calls one tool of one upstream: bounded by the upstream's timeout, slots and result size. */
  call(
    id: string,
    tool: string,
    args: Record<string, unknown>,
    options?: UpstreamCallOptions,
  ): Promise<UpstreamCallResult>;
  /** Closes every connection, stops every stdio server (its whole process group) and stops retrying. */
  close(): Promise<void>;
}

/** One tools/call on a direct path (without the MCP client). */
export interface DirectToolCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** Ends the call (timeout or the caller's cancel): the request is destroyed and the upstream told. */
  readonly end: CallEnd;
  /** The caller's own credential, sent instead of the connection's headers. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What came of one call; the caller maps each to an UpstreamCallResult. */
export type DirectToolAnswer =
  | {
      readonly kind: 'result';
      readonly result: unknown;
      /** Bytes of the JSON text the result was parsed from (its message), when known. */
      readonly textBytes?: number;
    }
  | { readonly kind: 'error'; readonly message: string }
  | { readonly kind: 'tooLarge'; readonly message: string }
  | { readonly kind: 'aborted' }
  /** The connection or the session is gone: the upstream goes down and reconnects. */
  | { readonly kind: 'lost'; readonly message: string }
  /** HTTP 401 to a call's own credential: the caller's credential is refused, not the connection. */
  | { readonly kind: 'unauthorized'; readonly message: string }
  | { readonly kind: 'failed'; readonly message: string };

/** Sends one tools/call and reads its answer (httpToolCall.ts, stdioToolCall.ts). */
export type DirectToolCaller = (call: DirectToolCall) => Promise<DirectToolAnswer>;
