import type { CallToolResult } from '@modelcontextprotocol/server';
import { LIST_ALL_QUERY, type ToolKind, type ToolTarget } from '@skillgate/skills';
import type { UsageEvent } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import { boundStrings } from '../observability/boundStrings.js';
import type { Metrics } from '../observability/metrics.js';
import type { RecentCall, RecentCalls } from '../observability/recentCalls.js';
import type { Tracing } from '../observability/tracing.js';
import type { UsageCounter, UsageMark } from '../observability/usageCounter.js';
import { writesAt } from '../observability/writesAt.js';
import type { ToolCall } from './toolCall.js';

/** Options of createCallObserver: where a finished call is written. */
export interface CallObserverOptions {
  readonly metrics: Pick<Metrics, 'inc' | 'observeUpstreamCall'>;
  /** Skill usage per skill and principal (docs/observability.md, "Skill usage"). */
  readonly usage?: Pick<UsageCounter, 'record'>;
  /** The request's span (tracing on); absent when tracing is off. */
  readonly tracing?: Pick<Tracing, 'annotate'>;
  /** Where each finished call is also kept for the operator page (never its arguments). */
  readonly recentCalls: Pick<RecentCalls, 'record'>;
  readonly log: FastifyBaseLogger;
  /** Whether the audit line carries the call's arguments (`logging.log_arguments`). */
  readonly logArguments: boolean;
  /** Longest client string kept in logs (`server.max_client_string_chars`). */
  readonly maxClientStringChars: number;
}

/** Writes what one finished call says: metrics, skill usage, the span, the recent calls, the audit line. */
export type CallObserver = (call: ToolCall, durationMs: number) => void;

// Tool kinds whose arguments go to an upstream server: never in the audit line (docs/upstreams.md).
const UPSTREAM_KINDS: ReadonlySet<string> = new Set(['call', 'call_skill_tool']);

/** The one place a finished tool call is observed, whatever its era, path or outcome. */
export function createCallObserver(options: CallObserverOptions): CallObserver {
  const { log, metrics, maxClientStringChars: maxChars } = options;
  return (call, durationMs) => {
    const { audience, kind, outcome } = call;
    const duration_ms = Math.round(durationMs);
    const tool = boundStrings(call.name, maxChars);
    let upstream: Record<string, string> | undefined;
    if (call.upstream !== undefined) {
      const { reason, ...labels } = call.upstream;
      upstream = { ...labels, ...(reason === undefined ? {} : { reason }) };
    }
    metrics.inc('skillgate_tool_calls_total', { kind, outcome });
    if (call.usage !== undefined) options.usage?.record(audience.principal.name, call.usage);
    // The request's span (tracing on) names the skill the call resolved to and the disclosure it ran under.
    if (options.tracing !== undefined) {
      const target = call.target;
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
            ? { arguments: boundStrings(call.args, maxChars) }
            : {}),
        },
        'tool call',
      );
  };
}

// The usage event of each kind that uses one skill; search_skills is counted only when it found nothing.
const USAGE_OF_KIND: Partial<Record<ToolKind, UsageEvent | 'run'>> = {
  get_info: 'info',
  load_skill: 'info',
  read: 'read',
  read_skill_file: 'read',
  run: 'run',
  run_async: 'run',
  run_skill_script: 'run',
  call: 'upstream',
  call_skill_tool: 'upstream',
};

/**
 * What a finished call adds to skill usage: only skills of the catalog are counted (so the metric's skill
 * label is bounded by it); a run is ok, error, or limit (timed out or stopped by a scripts.limits key).
 */
export function usageOf(
  call: Pick<ToolCall, 'catalog'>,
  target: ToolTarget,
  input: unknown,
  result: CallToolResult,
): UsageMark | undefined {
  if (target.kind === 'search_skills') {
    const found = (result.structuredContent as { results?: readonly unknown[] } | undefined)?.results;
    const query = (input as { query?: unknown }).query;
    return found?.length === 0 && typeof query === 'string' && query.trim() !== LIST_ALL_QUERY
      ? { emptySearch: query }
      : undefined;
  }
  const event = USAGE_OF_KIND[target.kind];
  if (event === undefined) return undefined;
  const fields = input as { name?: unknown; skill?: unknown };
  const skill = 'skill' in target ? target.skill : target.kind === 'load_skill' ? fields.name : fields.skill;
  if (typeof skill !== 'string' || !call.catalog.skills.has(skill)) return undefined;
  if (event !== 'run') return { skill, event };
  const run = result.structuredContent as { timed_out?: boolean; limit_exceeded?: string } | undefined;
  if (run?.timed_out === true || run?.limit_exceeded !== undefined) return { skill, event: 'run_limit' };
  return { skill, event: result.isError === true ? 'run_error' : 'run_ok' };
}
