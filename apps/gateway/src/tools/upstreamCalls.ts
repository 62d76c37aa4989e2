import type { CallToolResult } from '@modelcontextprotocol/server';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { ATTR_GEN_AI_TOOL_NAME, ATTR_MCP_METHOD_NAME } from '@opentelemetry/semantic-conventions/incubating';
import type { CallTool } from '@skillgate/skills';
import type { Tracing } from '../observability/tracing.js';

/** Why an upstream call failed (docs/upstreams.md): the `structuredContent.reason` of the tool error. */
export type UpstreamFailureReason =
  | 'UPSTREAM_UNAVAILABLE'
  | 'UPSTREAM_TIMEOUT'
  | 'UPSTREAM_ERROR'
  | 'RESULT_TOO_LARGE';

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

/** Options of callUpstream. */
interface CallUpstreamOptions {
  /** The pool; undefined when no upstream is configured (a stale catalog cannot call anything then). */
  readonly upstreams: UpstreamCaller | undefined;
  readonly skill: string;
  readonly call: CallTool;
  readonly args: Record<string, unknown>;
  /** The caller's principal id: it gets a share of the upstream's slots, never reaches the upstream. */
  readonly principal: string;
  readonly signal: AbortSignal;
  readonly onProgress?: (progress: UpstreamProgress) => void;
  /** Given (tracing on), the call is a child span whose trace context goes in the upstream's `_meta`. */
  readonly tracing?: Tracing;
}

/** A failure as the tool error a model can act on: the reason in text and in structuredContent. */
function upstreamFailure(
  reason: UpstreamFailureReason,
  message: string,
  call: Pick<CallTool, 'upstream' | 'tool'>,
): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `${reason}: ${message}` }],
    structuredContent: { reason, message, upstream: call.upstream, tool: call.tool },
  };
}

/**
 * Calls one upstream tool for a caller (docs/upstreams.md): the arguments go on unchanged (the upstream
 * validates them), its result comes back as it is, and every failure is a tool error with a reason, never a
 * JSON-RPC error or a hang. The caller's token and identity never go upstream: only the tool and arguments.
 */
export async function callUpstream(
  options: CallUpstreamOptions,
): Promise<{ result: CallToolResult; labels: UpstreamCallLabels }> {
  const { call, skill } = options;
  const labels = { skill, upstream: call.upstream, tool: call.tool };
  if (options.upstreams === undefined) {
    const reason = 'UPSTREAM_UNAVAILABLE';
    return {
      result: upstreamFailure(reason, `upstream "${call.upstream}" is not connected`, call),
      labels: { ...labels, reason },
    };
  }
  const pool = options.upstreams;
  const send = (meta: Readonly<Record<string, string>> | undefined) =>
    pool.call(call.upstream, call.tool, options.args, {
      principal: options.principal,
      signal: options.signal,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      ...(meta === undefined ? {} : { meta }),
    });
  const tracing = options.tracing;
  // The upstream continues this trace: its request's `_meta` carries the call span's context (SEP-414).
  const outcome =
    tracing === undefined
      ? await send(undefined)
      : await tracing.inSpan(
          `tools/call ${call.tool}`,
          {
            'skillgate.upstream': call.upstream,
            [ATTR_GEN_AI_TOOL_NAME]: call.tool,
            [ATTR_MCP_METHOD_NAME]: 'tools/call',
          },
          async (span) => {
            const answer = await send(tracing.outgoingMeta());
            if (!answer.ok) span.setAttribute(ATTR_ERROR_TYPE, answer.reason);
            else if (answer.result.isError === true) span.setAttribute(ATTR_ERROR_TYPE, 'tool_error');
            return answer;
          },
        );
  if (!outcome.ok) {
    return {
      result: upstreamFailure(outcome.reason, outcome.message, call),
      labels: { ...labels, reason: outcome.reason },
    };
  }
  // The upstream's result is passed on as it is: content, structuredContent and isError.
  return { result: outcome.result as CallToolResult, labels };
}
