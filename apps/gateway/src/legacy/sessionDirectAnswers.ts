import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { isRenderedOnce, jsonOf, renderOnce } from '../core/renderedJson.js';
import type { Audience } from '../disclosure/disclosurePolicy.js';
import { readSkillResourceResult, validToolResult } from '../mcp/sdkWireAnswers.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';
import type { ToolCallContext, ToolCallHandler, ToolListHandler } from '../tools/toolHandlers.js';

/**
 * A 2025-era session's direct path (docs/protocol-eras.md, "Hot paths"): a plain tools/list, tools/call or
 * resources/read is answered by the session's own handlers — the ones its SDK Server registers — without the
 * Server's per-message work (three schema guesses at the message's type, request and envelope parsing, an
 * abort controller and a context per request). Returns the promise of the result the SDK would send, or
 * undefined to leave the message to the Server. The transport writes the answer and routes cancellation.
 */
export type SessionDirectAnswers = (
  message: JSONRPCMessage & { id: RequestId; method: string },
  ctx: ToolCallContext,
) => Promise<Record<string, unknown> | RenderedResult> | undefined;

/** A result already written as JSON (the bytes JSON.stringify would give for it). */
export class RenderedResult {
  constructor(readonly json: string) {}
}

// A list is the catalog's frozen array, shared by every session that sees the same tools: written once.
const renderToolList = (tools: readonly object[]): RenderedResult =>
  new RenderedResult(`{"tools":${jsonOf(renderOnce(tools))}}`);

/** The handlers of one session that its direct path calls. */
export interface SessionDirectOptions {
  readonly audience: Audience;
  readonly listTools: ToolListHandler;
  readonly callTool: ToolCallHandler;
  readonly skills: Pick<SkillsService, 'readResource'>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** True when `params` holds no keys but `allowed` (no `_meta`: a progressToken wants the SDK's path). */
const onlyKeys = (params: Record<string, unknown>, allowed: readonly string[]): boolean => {
  for (const key in params) if (!allowed.includes(key)) return false;
  return true;
};

// The SDK wraps a tool's non-object output schema for 2025-era clients (its codec's encodeResult): a list
// holding one takes the SDK's path. Checked once per list object (lists are shared and frozen).
const needsLegacyWrap = new WeakMap<object, boolean>();
const wrapsOutputSchema = (tools: readonly unknown[]): boolean => {
  let verdict = needsLegacyWrap.get(tools);
  if (verdict === undefined) {
    verdict = tools.some((tool) => {
      const schema = isPlainObject(tool) ? tool.outputSchema : undefined;
      return isPlainObject(schema) && schema.type !== 'object';
    });
    needsLegacyWrap.set(tools, verdict);
  }
  return verdict;
};

/** Builds a session's direct path over its own handlers. */
export function createSessionDirectAnswers(options: SessionDirectOptions): SessionDirectAnswers {
  const { audience, listTools, callTool, skills } = options;
  return (message, ctx) => {
    const params = 'params' in message ? message.params : undefined;
    switch (message.method) {
      case 'tools/list':
        if (params !== undefined && !(isPlainObject(params) && onlyKeys(params, []))) return undefined;
        return listTools().then((result) => {
          if (wrapsOutputSchema(result.tools)) throw SDK_PATH;
          return renderToolList(result.tools);
        });
      case 'tools/call': {
        if (!isPlainObject(params) || !onlyKeys(params, ['name', 'arguments'])) return undefined;
        const { name, arguments: args } = params;
        if (typeof name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
        return callTool(
          {
            method: 'tools/call',
            params: args === undefined ? { name } : { name, arguments: args },
          },
          ctx,
        ).then((result) => {
          const valid = validToolResult(result);
          // A result built once (get_info's) is written as JSON once too (mcp/renderedJson.ts).
          return isRenderedOnce(valid) ? new RenderedResult(jsonOf(valid)) : valid;
        });
      }
      case 'resources/read':
        if (!isPlainObject(params) || !onlyKeys(params, ['uri']) || typeof params.uri !== 'string')
          return undefined;
        return readSkillResourceResult(skills, audience.principal, params.uri);
      default:
        return undefined;
    }
  };
}

/** Thrown by a direct answer that turns out to need the SDK's path after all (the transport hands it over). */
export const SDK_PATH = new Error('answered on the SDK path');
