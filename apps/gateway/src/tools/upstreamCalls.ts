import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { ATTR_GEN_AI_TOOL_NAME, ATTR_MCP_METHOD_NAME } from '@opentelemetry/semantic-conventions/incubating';
import type { CallTool } from '@skillgate/skills';
import { budgetIdOf } from '../auth/accessPolicy.js';
import { callerToken } from '../auth/callerToken.js';
import type { Tracing } from '../observability/tracing.js';
import { askToConnect, type CallCredentials, credentialRefusal } from './callCredentials.js';
import type { KindHandlers } from './kindHandler.js';
import { type SkillLookup, unknownSkill, usableSkill } from './skillLookup.js';
import type { ToolCall } from './toolCall.js';
import { toolError } from './toolResults.js';
import type {
  UpstreamCaller,
  UpstreamCallLabels,
  UpstreamFailureReason,
  UpstreamProgress,
} from './upstreamCaller.js';

/** What the upstream kinds use. */
export interface UpstreamServices {
  /** Which skills the caller may use (call_skill_tool names one in its arguments). */
  readonly disclosure: SkillLookup;
  /** Calls to upstream MCP servers; absent when none is configured (docs/upstreams.md). */
  readonly upstreams?: UpstreamCaller;
  /** Upstream calls as child spans; absent when tracing is off. */
  readonly tracing?: Tracing;
  /** Each caller's credentials for upstreams with `auth` (docs/credentials.md); absent when none has. */
  readonly credentials?: CallCredentials;
}

/** call and call_skill_tool: a tool of an upstream MCP server, called for the caller. */
export function upstreamCalls(services: UpstreamServices): Pick<KindHandlers, 'call' | 'call_skill_tool'> {
  const { disclosure } = services;
  return {
    async call(call, target, input) {
      return upstreamCall(services, call, target.skill, target.call, input);
    },
    async call_skill_tool(call, _target, input) {
      const entry = usableSkill(disclosure, call, input.skill);
      if (entry === undefined) return unknownSkill(disclosure, call, input.skill);
      const found = findCall(entry.calls, input);
      if (typeof found === 'string') return toolError(`Skill "${input.skill}" ${found}`);
      return upstreamCall(services, call, entry.skill.name, found, input.arguments ?? {});
    },
  };
}

/**
 * The call tool a call_skill_tool call names, or why none: the upstream is compared as its own argument,
 * never parsed out of the tool name (an upstream chooses its tool names and could imitate another's).
 */
function findCall(
  calls: ReadonlyMap<string, readonly CallTool[]>,
  input: { readonly tool: string; readonly upstream?: string | undefined },
): CallTool | string {
  const same = calls.get(input.tool) ?? [];
  const found =
    input.upstream === undefined
      ? same.length === 1
        ? same[0]
        : undefined
      : same.find((c) => c.upstream === input.upstream);
  if (found !== undefined) return found;
  if (input.upstream === undefined && same.length > 1) {
    const from = same.map((c) => JSON.stringify(c.upstream)).join(', ');
    return `has a tool "${input.tool}" of several MCP servers (${from}): pass "upstream" as its instructions print.`;
  }
  const known = [...calls.values()]
    .flat()
    .map((c) => (c.needsUpstream ? `${c.tool} (upstream ${c.upstream})` : c.tool));
  const of = input.upstream === undefined ? '' : ` of upstream "${input.upstream}"`;
  return `has no upstream tool "${input.tool}"${of}. ${
    known.length === 0 ? 'It exposes none right now.' : `Its tools: ${known.join(', ')}.`
  }`;
}

/**
 * One upstream call of a tool call: its labels go on the call for the audit line and the metrics. An upstream
 * with `auth` gets the caller's credential as headers (or the caller is asked to connect first); one that
 * answers 401 to a credential gets one more try with a fresh one.
 */
async function upstreamCall(
  services: UpstreamServices,
  call: ToolCall,
  skill: string,
  target: CallTool,
  args: Record<string, unknown>,
): Promise<CallToolResult | InputRequiredResult> {
  const { credentials } = services;
  const request = {
    target: target.upstream,
    principal: call.audience.principal,
    callerToken: callerToken(),
    tool: call.name,
  };
  const send = async (): Promise<{
    result: CallToolResult | InputRequiredResult;
    refused: Readonly<Record<string, string>> | undefined;
  }> => {
    let headers: Readonly<Record<string, string>> | undefined;
    if (credentials !== undefined) {
      const lookup = await credentials.upstreamHeaders(request);
      if (lookup.kind === 'connect')
        return { result: await askToConnect(credentials, call, lookup.need), refused: undefined };
      if (lookup.kind === 'refused') {
        call.upstream = { skill, upstream: target.upstream, tool: target.tool, reason: lookup.reason };
        return { result: credentialRefusal(lookup), refused: undefined };
      }
      if (Object.keys(lookup.values).length > 0) headers = lookup.values;
    }
    const { result, labels } = await callUpstream({
      upstreams: services.upstreams,
      skill,
      call: target,
      args,
      principal: budgetIdOf(call.audience.principal),
      signal: call.signal,
      ...(headers === undefined ? {} : { headers }),
      ...(call.progress === undefined ? {} : { onProgress: call.progress.forward }),
      ...(services.tracing === undefined ? {} : { tracing: services.tracing }),
    });
    call.upstream = labels;
    return { result, refused: labels.reason === 'UPSTREAM_UNAUTHORIZED' ? headers : undefined };
  };
  const first = await send();
  if (first.refused === undefined || credentials === undefined) return first.result;
  // The credential was refused (revoked, or expired early): drop what is cached and try once more.
  await credentials.upstreamRefused(request, first.refused);
  return (await send()).result;
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
  /** The caller's credential for an upstream with `auth` (replacing its configured headers for this call). */
  readonly headers?: Readonly<Record<string, string>>;
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
async function callUpstream(
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
      ...(options.headers === undefined ? {} : { headers: options.headers }),
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
