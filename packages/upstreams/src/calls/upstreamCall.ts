import { type Client, ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { RunnerError, type SlotPool } from '@skillgate/runner';
import { isConnectionLoss } from '../connection/isConnectionLoss.js';
import type { UpstreamStatus } from '../connection/upstreamStatus.js';
import { describeError } from '../describeError.js';
import type {
  DirectToolAnswer,
  DirectToolCaller,
  UpstreamCallOptions,
  UpstreamCallResult,
  UpstreamDefinition,
} from '../types.js';
import { UpstreamsError } from '../upstreamsError.js';
import { ANSWER_TOO_LARGE_CODE } from '../wire/boundedEventStream.js';
import { CallEnd } from './callEnd.js';
import { withCallSignal } from './callScope.js';
import { nestedDeeperThan } from './nestedDeeperThan.js';
import type { OversizeGuard } from './oversizeGuard.js';
import type { ProgressRelay } from './progressRelay.js';

/** What one call needs of its connection. */
export interface UpstreamCallContext {
  readonly definition: UpstreamDefinition;
  readonly status: UpstreamStatus;
  /** The connected client, if any, when the call came in. */
  readonly client: Client | undefined;
  /** The tools/call path beside the client (httpToolCall.ts, stdioToolCall.ts), for the same connection. */
  readonly direct: DirectToolCaller | undefined;
  /** The upstream's call slots: max_concurrent, a per-principal share of them, a bounded queue. */
  readonly slots: SlotPool;
  readonly progress: ProgressRelay;
  /** Callers that keep getting answers over max_result_bytes from a tool are refused it for a while. */
  readonly oversize: OversizeGuard;
  /** This call saw the connection go away: the upstream goes down and is retried. */
  readonly lost: (reason: string) => void;
}

/** One call: the tool, its arguments, and the caller's signal and progress handler. */
export interface UpstreamCallRequest extends UpstreamCallOptions {
  readonly tool: string;
  readonly args: Record<string, unknown>;
}

/**
 * Calls one tool of a connected upstream, bounded by its timeout (waiting for a slot included), its
 * max_concurrent slots and max_result_bytes. Every outcome is an UpstreamCallResult; nothing is thrown.
 */
export async function callUpstreamTool(
  context: UpstreamCallContext,
  request: UpstreamCallRequest,
): Promise<UpstreamCallResult> {
  const { definition, status, client } = context;
  const { tool } = request;
  if (status.state !== 'ready' || client === undefined) {
    const why = status.lastError === undefined ? '' : `: ${status.lastError}`;
    return unavailable(`upstream ${definition.id} is ${status.state}${why}`);
  }
  if (!status.exposes(tool)) {
    return { ok: false, reason: 'UPSTREAM_ERROR', message: `upstream ${definition.id} has no tool ${tool}` };
  }
  const principal = request.principal ?? '';
  const refusedMs = context.oversize.refusedFor(principal, tool);
  if (refusedMs > 0) {
    return {
      ok: false,
      reason: 'RESULT_TOO_LARGE',
      message: `calls of ${definition.id}/${tool} are refused to this caller for ${Math.ceil(refusedMs / 1000)} s more: its last answers were over max_result_bytes ${definition.maxResultBytes}`,
    };
  }
  const outcome = await sendCall(context, request);
  if (!outcome.ok && outcome.reason === 'RESULT_TOO_LARGE') context.oversize.struck(principal, tool);
  return outcome;
}

// The call once admitted: a slot, then the upstream.
async function sendCall(
  context: UpstreamCallContext,
  request: UpstreamCallRequest,
): Promise<UpstreamCallResult> {
  const { definition, client } = context;
  const { tool } = request;
  if (client === undefined) return unavailable(`upstream ${definition.id} is down`);
  const deadline = Date.now() + definition.timeoutSeconds * 1000;
  let release: () => void;
  try {
    release = await context.slots.acquire(request.principal ?? '', request.signal);
  } catch (error) {
    if (request.signal?.aborted === true) return cancelled();
    if (error instanceof RunnerError && error.code === 'RUNNER_CLOSED') {
      return unavailable(`upstream ${definition.id} is closing`);
    }
    return { ok: false, reason: 'UPSTREAM_TIMEOUT', message: describeError(error) };
  }
  const progressToken =
    request.onProgress === undefined ? undefined : context.progress.open(request.onProgress);
  try {
    if (context.direct !== undefined) {
      return await directCall(context, { request, direct: context.direct, progressToken, deadline });
    }
    // The SDK client sends its connection's headers only: a caller's own credential cannot ride it.
    if (request.headers !== undefined) {
      return {
        ok: false,
        reason: 'UPSTREAM_ERROR',
        message: `${definition.id}/${tool} takes the SDK's call path (x-mcp-header parameters), which cannot carry a caller's own credential`,
      };
    }
    // Ends the call's HTTP request however the call ends (answer, timeout, cancel): the client only tells the
    // upstream, and a 2025-era response stream the upstream keeps open would hold its socket for good.
    const ended = new AbortController();
    try {
      const result = await withCallSignal(ended.signal, () =>
        client.callTool(
          {
            name: tool,
            arguments: request.args,
            ...(progressToken === undefined && request.meta === undefined
              ? {}
              : { _meta: { ...request.meta, ...(progressToken === undefined ? {} : { progressToken }) } }),
          },
          {
            timeout: Math.max(1, deadline - Date.now()),
            ...(request.signal === undefined ? {} : { signal: request.signal }),
          },
        ),
      );
      return shaped(definition, tool, result);
    } catch (error) {
      return failure(context, { request, error });
    } finally {
      ended.abort();
    }
  } finally {
    if (progressToken !== undefined) context.progress.release(progressToken);
    release();
  }
}

// JSON.stringify of a parsed JSON text is at most this many times the text's bytes: only a number can grow
// (`1e20` is written as 21 digits: 5.25×); whitespace, escapes and repeated keys only shrink.
const MAX_REWRITE_GROWTH = 6;

// Deepest nesting of arrays and objects in a result: far past any tool's output, far below the ~4,000 levels
// at which JSON.stringify runs out of stack (docs/limits.md, "Answers of a call").
const MAX_RESULT_DEPTH = 256;

// The result as the caller gets it, or RESULT_TOO_LARGE past max_result_bytes. A result parsed from a text
// small enough that its JSON cannot pass the bound is not written out to be measured.
function shaped(
  definition: UpstreamDefinition,
  tool: string,
  result: unknown,
  textBytes?: number,
): UpstreamCallResult {
  // Checked first: writing a value thousands of levels deep (to measure it here, to scrub secrets, to answer
  // the caller) overflows the stack, which failed the call as an internal error, or left it unanswered.
  if (nestedDeeperThan(result, MAX_RESULT_DEPTH)) {
    return {
      ok: false,
      reason: 'UPSTREAM_ERROR',
      message: `the result of ${definition.id}/${tool} nests deeper than ${MAX_RESULT_DEPTH} levels`,
    };
  }
  const surelyWithin = textBytes !== undefined && textBytes * MAX_REWRITE_GROWTH <= definition.maxResultBytes;
  const size = surelyWithin ? 0 : Buffer.byteLength(JSON.stringify(result));
  if (size > definition.maxResultBytes) {
    return {
      ok: false,
      reason: 'RESULT_TOO_LARGE',
      message: `the result of ${definition.id}/${tool} has ${size} bytes, over max_result_bytes ${definition.maxResultBytes}`,
    };
  }
  const { content, structuredContent, isError } = result as {
    content?: unknown;
    structuredContent?: unknown;
    isError?: unknown;
  };
  return {
    ok: true,
    result: {
      content: Array.isArray(content) ? (content as unknown[]) : [],
      ...(structuredContent === undefined ? {} : { structuredContent }),
      ...(isError === true ? { isError: true } : {}),
    },
  };
}

interface DirectCall {
  readonly request: UpstreamCallRequest;
  readonly direct: DirectToolCaller;
  readonly progressToken: string | undefined;
  readonly deadline: number;
}

// A call of an HTTP upstream on the direct path: its own timer and the caller's signal end it.
async function directCall(context: UpstreamCallContext, call: DirectCall): Promise<UpstreamCallResult> {
  const { definition } = context;
  const { request, progressToken } = call;
  const { tool } = request;
  const end = new CallEnd();
  let timedOut = false;
  const timer = setTimeout(
    () => {
      timedOut = true;
      end.abort();
    },
    Math.max(1, call.deadline - Date.now()),
  );
  const onCancel = (): void => end.abort();
  request.signal?.addEventListener('abort', onCancel, { once: true });
  if (request.signal?.aborted === true) end.abort();
  const meta =
    progressToken === undefined && request.meta === undefined
      ? undefined
      : { ...request.meta, ...(progressToken === undefined ? {} : { progressToken }) };
  let answer: DirectToolAnswer;
  try {
    answer = await call.direct({
      tool,
      args: request.args,
      meta,
      end,
      ...(request.headers === undefined ? {} : { headers: request.headers }),
    });
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onCancel);
  }
  switch (answer.kind) {
    case 'result':
      return shaped(definition, tool, answer.result, answer.textBytes);
    case 'error':
      return { ok: false, reason: 'UPSTREAM_ERROR', message: boundedMessage(answer.message) };
    case 'tooLarge':
      return tooLarge(definition, tool, answer.message);
    case 'aborted':
      return timedOut ? timeout(definition, tool) : cancelled();
    case 'lost':
      context.lost(answer.message);
      return unavailable(`upstream ${definition.id} went away during the call: ${answer.message}`);
    case 'unauthorized':
      return { ok: false, reason: 'UPSTREAM_UNAUTHORIZED', message: answer.message };
    case 'failed':
      return { ok: false, reason: 'UPSTREAM_ERROR', message: boundedMessage(answer.message) };
  }
}

function timeout(definition: UpstreamDefinition, tool: string): UpstreamCallResult {
  return {
    ok: false,
    reason: 'UPSTREAM_TIMEOUT',
    message: `upstream ${definition.id} did not answer ${tool} within ${definition.timeoutSeconds} s`,
  };
}

function tooLarge(definition: UpstreamDefinition, tool: string, why: string): UpstreamCallResult {
  return {
    ok: false,
    reason: 'RESULT_TOO_LARGE',
    message: `the answer of ${definition.id}/${tool} was cut: ${boundedMessage(why)} (max_result_bytes ${definition.maxResultBytes})`,
  };
}

// Why a sent call has no result; only a lost connection changes the upstream's state.
function failure(
  context: UpstreamCallContext,
  failed: { readonly request: UpstreamCallRequest; readonly error: unknown },
): UpstreamCallResult {
  const { definition } = context;
  const { request, error } = failed;
  const { tool } = request;
  if (request.signal?.aborted === true) return cancelled();
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return timeout(definition, tool);
  const cut =
    (error instanceof ProtocolError && error.code === ANSWER_TOO_LARGE_CODE) ||
    (error instanceof UpstreamsError && error.code === 'RESPONSE_TOO_LARGE');
  if (cut) return tooLarge(definition, tool, error.message);
  if (error instanceof ProtocolError) {
    return { ok: false, reason: 'UPSTREAM_ERROR', message: boundedMessage(error.message) };
  }
  if (isConnectionLoss(error)) {
    context.lost(describeError(error));
    return unavailable(`upstream ${definition.id} went away during the call: ${describeError(error)}`);
  }
  return { ok: false, reason: 'UPSTREAM_ERROR', message: describeError(error) };
}

// An upstream's error message reaches the caller: a 12 MB one passed whole. Past this it is cut.
const MAX_ERROR_MESSAGE_CHARS = 4096;

function boundedMessage(message: string): string {
  if (message.length <= MAX_ERROR_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}… (${message.length - MAX_ERROR_MESSAGE_CHARS} more characters cut)`;
}

function unavailable(message: string): UpstreamCallResult {
  return { ok: false, reason: 'UPSTREAM_UNAVAILABLE', message };
}

function cancelled(): UpstreamCallResult {
  return { ok: false, reason: 'UPSTREAM_ERROR', message: 'the call was cancelled' };
}
