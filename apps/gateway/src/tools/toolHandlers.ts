import type {
  CallToolRequest,
  CallToolResult,
  Server,
  ServerNotification,
  Tool,
} from '@modelcontextprotocol/server';
import type { RunProgress } from '@skillgate/runner';
import type { EventBus, StateEvent } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import type { Audience } from '../disclosure/disclosurePolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import { toGatewayError, toProtocolError } from '../errors/toGatewayError.js';
import { boundStrings } from '../observability/boundStrings.js';
import type { RecentCall, RecentCalls } from '../observability/recentCalls.js';
import type { UsageCounter, UsageMark } from '../observability/usageCounter.js';
import { writesAt } from '../observability/writesAt.js';
import type { CallExtras, CalledTool, ToolCallOptions } from './callTypes.js';
import type { InFlightCalls } from './inFlightCalls.js';
import type { RelistWatch } from './relistWatch.js';
import { callTool } from './toolCalls.js';
import type { UpstreamProgress } from './upstreamCalls.js';

/** Options of ToolHandlers.register. */
export interface RegisterToolsOptions {
  /** A 2025-era session's watch: holds a get_info result that unlocked tools until the session re-lists. */
  readonly relist?: RelistWatch;
}

/** Options of createToolHandlers: what tool calls work with, plus what the list, audit and metrics need. */
export interface ToolHandlersOptions extends ToolCallOptions {
  /** Tool calls in progress (shutdown waits for them). */
  readonly inFlight: Pick<InFlightCalls, 'begin'>;
  /** A principal-scoped unlock tells that principal's other sessions, on any replica. */
  readonly events: Pick<EventBus<StateEvent>, 'publish'>;
  readonly log: FastifyBaseLogger;
  /** Longest client string kept in logs and accepted as a progress token (`server.max_client_string_chars`). */
  readonly maxClientStringChars: number;
  /** Whether the audit line carries the call's arguments (`logging.log_arguments`). */
  readonly logArguments: boolean;
  /** Where each finished call is also kept for the operator page (never its arguments). */
  readonly recentCalls: Pick<RecentCalls, 'record'>;
  /** Skill usage per skill and principal (docs/observability.md, "Skill usage"). */
  readonly usage?: Pick<UsageCounter, 'record'>;
}

/** tools/list + tools/call of the gateway, the same way for both eras. */
export interface ToolHandlers {
  /**
   * Registers tools/list and tools/call on a server for one audience: the list and every call go through the
   * disclosure policy; metrics and the audit log are written once, in the call handler.
   */
  register(server: Server, audience: Audience, options?: RegisterToolsOptions): void;
  /** The tools/call handler of one audience: the SDK servers register it, the direct path calls it. */
  callHandler(audience: Audience, relist?: RelistWatch): ToolCallHandler;
  /** The tools/list handler of one audience: the SDK servers register it, a session's direct path calls it. */
  listHandler(audience: Audience, relist?: RelistWatch): ToolListHandler;
}

/** Creates the gateway's tool handlers over its catalog, disclosure policy, runner, jobs and upstreams. */
export function createToolHandlers(options: ToolHandlersOptions): ToolHandlers {
  return {
    register(server, audience, { relist } = {}) {
      server.setRequestHandler('tools/list', createToolListHandler(options, audience, relist));
      const callTool = createToolCallHandler(options, audience, relist);
      server.setRequestHandler('tools/call', (request, ctx) =>
        callTool(request, {
          signal: ctx.mcpReq.signal,
          notify: (notification) => ctx.mcpReq.notify(notification),
        }),
      );
    },
    callHandler: (audience, relist) => createToolCallHandler(options, audience, relist),
    listHandler: (audience, relist) => createToolListHandler(options, audience, relist),
  };
}

/** A tools/list handler for one audience (without the 2026-07-28 cache fields). */
export type ToolListHandler = () => Promise<{ tools: Tool[] }>;

/** The tools/list handler of one audience; a 2025-era session's list also tells its re-list watch. */
function createToolListHandler(
  options: ToolHandlersOptions,
  audience: Audience,
  relist?: RelistWatch,
): ToolListHandler {
  return async () => {
    const generation = relist?.generation() ?? 0;
    const tools = await options.disclosure.listTools(options.catalogs.current, audience);
    relist?.listed(generation);
    // The catalog's definitions are frozen, shared and already in wire shape: no copy, no conversion.
    return { tools: tools as Tool[] };
  };
}

/** What a tools/call handler needs of the request it serves: its abort signal and related notifications. */
export interface ToolCallContext {
  readonly signal: AbortSignal;
  notify(notification: ServerNotification): Promise<void>;
}

// Tool kinds whose arguments go to an upstream server: never in the audit line (docs/upstreams.md).
const UPSTREAM_KINDS: ReadonlySet<string> = new Set(['call', 'call_skill_tool']);

/** A tools/call handler for one audience: the SDK servers register it, the direct path calls it. */
export type ToolCallHandler = (request: CallToolRequest, ctx: ToolCallContext) => Promise<CallToolResult>;

/**
 * The tools/call handler of one audience, the same in both eras and on every path: the call goes through the
 * disclosure policy; metrics and the audit log are written here once.
 */
function createToolCallHandler(
  options: ToolHandlersOptions,
  audience: Audience,
  relist?: RelistWatch,
): ToolCallHandler {
  const { log, metrics, maxClientStringChars: maxChars } = options;
  return async (request, ctx) => {
    const started = performance.now();
    const end = options.inFlight.begin();
    const name = request.params.name;
    // The one lookup of the name, in one catalog snapshot; the label says what it names even when the call
    // fails before it runs.
    const catalog = options.catalogs.current;
    const called: CalledTool = { name, catalog, target: catalog.resolve(name) };
    let kind: string = called.target?.kind ?? 'unknown';
    let outcome = 'error';
    let usage: UsageMark | undefined;
    let heldUntilRelisted: (() => Promise<void>) | undefined;
    let upstream: Record<string, string> | undefined;
    // Progress notifications still being written: the result waits for them, so none arrives after it
    // (a client drops progress of a request it already has the answer to). Only a call with a progressToken
    // can send any: the others make no list.
    let progressSent: Array<Promise<void>> | undefined;
    try {
      const progressToken = request.params._meta?.progressToken;
      // Echoed in every progress notification, about once a second for as long as the script runs.
      if (typeof progressToken === 'string' && progressToken.length > maxChars) {
        throw new GatewayError(
          'INVALID_ARGUMENTS',
          `_meta.progressToken is ${progressToken.length} characters long; at most ${maxChars} are accepted (server.max_client_string_chars)`,
        );
      }
      const extras = new RequestExtras(ctx, async () => {
        // Armed before the notification goes out: the client's tools/list may come back at once.
        heldUntilRelisted = relist?.expect();
        await ctx.notify({ method: 'notifications/tools/list_changed' });
        // A principal-scoped unlock changes the lists of that principal's other sessions too, on any replica.
        if (audience.sessionId !== undefined && audience.scopeKey !== audience.sessionId) {
          options.events.publish({
            kind: 'scope_notify',
            scopeKey: audience.scopeKey,
            exceptSessionId: audience.sessionId,
            message: { method: 'notifications/tools/list_changed' },
          });
        }
      });
      if (progressToken !== undefined) {
        const sent: Array<Promise<void>> = [];
        progressSent = sent;
        // An upstream's own progress goes on as it came, under the caller's token (never the upstream's).
        extras.forwardProgress = (p) => {
          sent.push(
            ctx
              .notify({
                method: 'notifications/progress',
                params: {
                  progressToken,
                  progress: p.progress,
                  ...(p.total === undefined ? {} : { total: p.total }),
                  ...(p.message === undefined ? {} : { message: p.message }),
                },
              })
              .catch(() => {}),
          );
        };
        // About once a second while a script runs: elapsed seconds and its last output line.
        extras.reportProgress = (p) => {
          ctx
            .notify({
              method: 'notifications/progress',
              params: {
                progressToken,
                progress: p.elapsedMs / 1000,
                message: p.lastLine === '' ? `running for ${Math.round(p.elapsedMs / 1000)} s` : p.lastLine,
              },
            })
            .catch(() => {});
        };
      }
      const done = await callTool(options, audience, called, request.params.arguments, extras);
      // Most calls sent none: awaiting an empty Promise.all would still cost its promise and ticks.
      if (progressSent !== undefined && progressSent.length > 0) await Promise.all(progressSent);
      kind = done.kind;
      outcome = done.outcome;
      usage = done.usage;
      if (done.upstream !== undefined) {
        const { reason, ...labels } = done.upstream;
        upstream = { ...labels, ...(reason === undefined ? {} : { reason }) };
      }
      // The result waits (bounded) for the re-list it caused, so the host's next model turn has the tools.
      if (heldUntilRelisted !== undefined) await heldUntilRelisted();
      return done.result;
    } catch (error) {
      const mapped = toGatewayError(error, 'Internal error while calling the tool');
      if (mapped.code === 'INTERNAL') {
        log.error(
          { err: error, tool: boundStrings(name, maxChars), session: audience.sessionId },
          'tool call failed',
        );
      } else {
        outcome = mapped.code.toLowerCase();
        if (mapped.code === 'UNKNOWN_TOOL') kind = 'unknown';
        // An unlock or job write Redis refused for lack of memory: said as such, not as an internal error.
        if (mapped.code === 'STATE_FULL') log.error({ tool: boundStrings(name, maxChars) }, mapped.message);
      }
      throw toProtocolError(mapped);
    } finally {
      end();
      const duration_ms = Math.round(performance.now() - started);
      const tool = boundStrings(name, maxChars);
      metrics.inc('skillgate_tool_calls_total', { kind, outcome });
      if (usage !== undefined) options.usage?.record(audience.principal.name, usage);
      // The request's span (tracing on) names the skill the call resolved to and the disclosure it ran under.
      if (options.tracing !== undefined) {
        const target = called.target;
        options.tracing.annotate({
          'skillgate.disclosure': audience.disclosure,
          'skillgate.tool.kind': kind,
          ...(target !== undefined && 'skill' in target ? { 'skillgate.skill.name': target.skill } : {}),
        });
      }
      if (upstream?.upstream !== undefined) {
        // Outcome: ok, tool_error, or the failure reason (UPSTREAM_TIMEOUT ...).
        metrics.observeUpstreamCall(duration_ms / 1000, {
          upstream: upstream.upstream,
          outcome: upstream.reason ?? outcome,
        });
      }
      const recent: RecentCall = {
        at: Date.now(),
        principal: audience.principal.name,
        era: audience.era,
        tool,
        kind,
        outcome,
        durationMs: duration_ms,
      };
      options.recentCalls.record(
        upstream?.upstream === undefined ? recent : { ...recent, upstream: upstream.upstream },
      );
      // The audit line is built only when it is written (a copy of the arguments is not free).
      if (writesAt(log, 'info'))
        log.info(
          {
            audit: 'tool_call',
            principal: audience.principal.name,
            era: audience.era,
            ...(audience.sessionId === undefined ? {} : { session: audience.sessionId }),
            tool,
            kind,
            outcome,
            // Upstream calls name skill, upstream, upstream tool and failure reason; never their arguments.
            ...(upstream === undefined || Object.keys(upstream).length === 0 ? {} : { upstream }),
            duration_ms,
            // Never for upstream calls, whatever log_arguments says: they are data for another system.
            ...(options.logArguments && !UPSTREAM_KINDS.has(kind)
              ? { arguments: boundStrings(request.params.arguments, maxChars) }
              : {}),
          },
          'tool call',
        );
    }
  };
}

/**
 * A call's extras over its request's context, as a class: an object literal with a getter costs a runtime
 * call per accessor to create, on every call. The signal is read only by calls that can be cancelled (runs,
 * upstream calls): the direct paths make one only when it is asked for (mcp/lazyAbort.ts).
 */
class RequestExtras implements CallExtras {
  reportProgress?: (progress: RunProgress) => void;
  forwardProgress?: (progress: UpstreamProgress) => void;
  constructor(
    private readonly ctx: ToolCallContext,
    readonly notifyToolsChanged: () => Promise<void>,
  ) {}
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
}
