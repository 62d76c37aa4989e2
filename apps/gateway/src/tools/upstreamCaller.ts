/** Why an upstream call failed (docs/upstreams.md): the `structuredContent.reason` of the tool error. */
export type UpstreamFailureReason =
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_ERROR'
  | 'RESULT_TOO_LARGE'
  /** The upstream answered HTTP 401 to the caller's credential (docs/credentials.md). */
  | 'UPSTREAM_UNAUTHORIZED'
  /** No credential could be had for the caller (a static token where only OAuth subjects exchange, a token endpoint down). */
  | 'CREDENTIAL_UNAVAILABLE';

/** Progress an upstream reported for a call, passed on to the caller as it came. */
export interface UpstreamProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What one upstream call gave: the upstream's result, or why there is none. */
export type UpstreamCallResult =
  | {
      readonly ok: true;
      readonly result: { content: unknown[]; structuredContent?: unknown; isError?: boolean };
    }
  | { readonly ok: false; readonly reason: UpstreamFailureReason; readonly message: string };

/** The part of the upstream pool that tool calls use (packages/upstreams implements it). */
export interface UpstreamCaller {
  call(
    id: string,
    tool: string,
    args: Record<string, unknown>,
    options: {
      principal?: string;
      signal?: AbortSignal;
      onProgress?: (progress: UpstreamProgress) => void;
      meta?: Readonly<Record<string, string>>;
      headers?: Readonly<Record<string, string>>;
    },
  ): Promise<UpstreamCallResult>;
}

/** What the audit line and metrics say about an upstream call. */
export interface UpstreamCallLabels {
  readonly skill: string;
  readonly upstream: string;
  readonly tool: string;
  /** The failure reason, when the call got no upstream result. */
  readonly reason?: UpstreamFailureReason;
}
