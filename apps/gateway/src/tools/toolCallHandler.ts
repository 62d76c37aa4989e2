import {
  type CallToolRequest,
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
} from '@modelcontextprotocol/server';
import type { EventBus, StateEvent } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import type { CatalogSource } from '../core/catalogSource.js';
import type { Audience } from '../disclosure/audience.js';
import { GatewayError } from '../errors/gatewayError.js';
import { toGatewayError, toProtocolError } from '../errors/toGatewayError.js';
import { boundStrings } from '../observability/boundStrings.js';
import type { CallCredentials } from './callCredentials.js';
import { type CallObserver, usageOf } from './callObservation.js';
import { callProgress } from './callProgress.js';
import { dispatchByKind } from './dispatchByKind.js';
import type { InFlightCalls } from './inFlightCalls.js';
import type { KindHandlers } from './kindHandler.js';
import type { RelistWatch } from './relistWatch.js';
import { type ResolveServices, resolveToolCall } from './resolveToolCall.js';
import { ToolCall, type ToolCallContext } from './toolCall.js';
import { toolsChangedNotice } from './toolsChanged.js';

/**
 * A tools/call handler for one audience: the SDK servers register it, the direct path calls it. A 2026-07-28
 * call that needs a connected account may answer input_required (tools/callCredentials.ts).
 */
export type ToolCallHandler = (
  request: CallToolRequest,
  ctx: ToolCallContext,
) => Promise<CallToolResult | InputRequiredResult>;

/** Options of createToolCallHandler: the steps of a call, each with its own services. */
export interface ToolCallHandlerOptions {
  readonly catalogs: Pick<CatalogSource, 'current'>;
  /** The resolve step: the disclosure decision and the used skill. */
  readonly resolve: ResolveServices;
  /** The dispatch step: one handler per tool kind (dispatchByKind.ts). */
  readonly kinds: KindHandlers;
  /** Writes each finished call's metrics, usage, span, recent call and audit line (callObservation.ts). */
  readonly observe: CallObserver;
  /** Tool calls in progress (shutdown waits for them). */
  readonly inFlight: Pick<InFlightCalls, 'begin'>;
  /** A principal-scoped unlock tells that principal's other sessions, on any replica. */
  readonly events: Pick<EventBus<StateEvent>, 'publish'>;
  /** Where a call that failed unexpectedly is logged. */
  readonly log: FastifyBaseLogger;
  /** Longest client string kept in logs and accepted as a progress token (`server.max_client_string_chars`). */
  readonly maxClientStringChars: number;
  /** Checks a 2026-07-28 retry's requestState (tools/callCredentials.ts); absent: no state is ever minted. */
  readonly requestStates?: Pick<CallCredentials, 'checkRequestState'>;
}

const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** Whether a 2026-07-28 envelope (in `_meta`, or as the SDK lifts it) declares URL elicitation. */
export function envelopeElicitsUrl(meta: Readonly<Record<string, unknown>> | undefined): boolean {
  const capabilities = meta?.[CAPABILITIES_KEY] as { elicitation?: { url?: unknown } } | undefined;
  return capabilities?.elicitation?.url !== undefined;
}

/**
 * The tools/call handler of one audience, the same in both eras and on every path: the name is resolved once
 * into a ToolCall, then resolve (may the caller call it, with these arguments?) -> dispatch (its kind's
 * handler) -> answer (after its progress and the re-list it caused); every call is observed once, at its end.
 */
export function createToolCallHandler(
  options: ToolCallHandlerOptions,
  audience: Audience,
  relist?: RelistWatch,
): ToolCallHandler {
  const { catalogs, kinds, observe, log, maxClientStringChars: maxChars } = options;
  const toolsChanged = toolsChangedNotice({ relist, events: options.events });
  return async (request, ctx) => {
    const started = performance.now();
    const end = options.inFlight.begin();
    const name = request.params.name;
    // The one lookup of the name, in one catalog snapshot; the label says what it names even when the call
    // fails before it runs.
    const catalog = catalogs.current;
    const call = new ToolCall(
      name,
      catalog,
      catalog.resolve(name),
      request.params.arguments,
      audience,
      ctx,
      toolsChanged,
      audience.era === 'legacy'
        ? audience.elicitsUrl === true
        : (ctx.elicitsUrl ?? envelopeElicitsUrl(request.params._meta)),
    );
    try {
      // A retry's state is the gateway's own or refused, before anything runs (-32602, never a guess).
      if (ctx.requestState !== undefined) await checkRequestState(options, call, ctx.requestState);
      call.progress = callProgress(request.params._meta?.progressToken, ctx, maxChars);
      const resolved = await resolveToolCall(options.resolve, call);
      let result: CallToolResult | InputRequiredResult;
      if (resolved.kind === 'locked') {
        result = resolved.result;
        call.outcome = 'locked';
      } else {
        result = await dispatchByKind(kinds, call, resolved.target, resolved.input);
        if (!isInputRequiredResult(result)) {
          // A call that asked to connect keeps the outcome it set (connect_required).
          if (call.outcome === 'error') call.outcome = result.isError === true ? 'tool_error' : 'ok';
          call.usage = usageOf(call, resolved.target, resolved.input, result);
        }
      }
      // Most calls sent no progress: they await nothing here.
      const progressSent = call.progress?.pending();
      if (progressSent !== undefined) await progressSent;
      // The result waits (bounded) for the re-list it caused, so the host's next model turn has the tools.
      if (call.heldUntilRelisted !== undefined) await call.heldUntilRelisted();
      return result;
    } catch (error) {
      const mapped = toGatewayError(error, 'Internal error while calling the tool');
      if (mapped.code === 'INTERNAL') {
        log.error(
          { err: error, tool: boundStrings(name, maxChars), session: audience.sessionId },
          'tool call failed',
        );
      } else {
        call.outcome = mapped.code.toLowerCase();
        if (mapped.code === 'UNKNOWN_TOOL') call.kind = 'unknown';
        // An unlock or job write Redis refused for lack of memory: said as such, not as an internal error.
        if (mapped.code === 'STATE_FULL') log.error({ tool: boundStrings(name, maxChars) }, mapped.message);
      }
      throw toProtocolError(mapped);
    } finally {
      end();
      observe(call, performance.now() - started);
    }
  };
}

/** Refuses a requestState the gateway did not mint for this principal and tool (or any, when it mints none). */
async function checkRequestState(
  options: ToolCallHandlerOptions,
  call: ToolCall,
  state: string,
): Promise<void> {
  if (options.requestStates === undefined) {
    throw new GatewayError('INVALID_REQUEST_STATE', 'Invalid or expired requestState');
  }
  await options.requestStates.checkRequestState(state, call.audience.principal, call.name);
}
