import { isInputRequiredResult } from '@modelcontextprotocol/server';
import { isRenderedOnce, jsonOf, renderOnce } from '../core/renderedJson.js';
import type { Audience } from '../disclosure/audience.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';
import type { ToolCallContext } from '../tools/toolCall.js';
import type { ToolCallHandler } from '../tools/toolCallHandler.js';
import type { ToolListHandler } from '../tools/toolHandlers.js';
import { type PlainRequest, plainRequestOf, SESSION_CONTEXT } from './plainRequest.js';
import { keptResult } from './resultWriter.js';
import { readSkillResourceResult, validToolResult } from './sdkWireAnswers.js';

/**
 * A 2025-era session's direct path (docs/protocol-eras.md, "Hot paths"): a plain tools/list, tools/call or
 * resources/read (plainRequest.ts) is answered by the session's own handlers — the ones its SDK Server
 * registers — without the Server's per-message work (three schema guesses at the message's type, request and
 * envelope parsing, an abort controller and a context per request). Returns the request and the promise of
 * the result the SDK would send, or undefined to leave the message to the Server. The transport writes the
 * answer and routes cancellation (sessionCalls.ts).
 */
export type SessionAnswers = (
  message: unknown,
  ctx: ToolCallContext,
) => Promise<Record<string, unknown> | RenderedResult> | undefined;

/** A result already written as JSON (the bytes JSON.stringify would give for it), kept as keptResult keeps it. */
export class RenderedResult {
  constructor(readonly kept: string | Buffer) {}
}

// Rendered results by the registered value they render (a tool list, a get_info result): made once, so a
// long one is kept as bytes once, and dropped with the value.
const renderedResults = new WeakMap<object, RenderedResult>();
const renderedResultOf = (value: object, json: () => string): RenderedResult => {
  let rendered = renderedResults.get(value);
  if (rendered === undefined) {
    rendered = new RenderedResult(keptResult(json()));
    renderedResults.set(value, rendered);
  }
  return rendered;
};

// A list is the catalog's frozen array, shared by every session that sees the same tools: written once.
const renderToolList = (tools: readonly object[]): RenderedResult =>
  renderedResultOf(tools, () => `{"tools":${jsonOf(renderOnce(tools))}}`);

/** The handlers of one session that its direct path calls. */
export interface SessionAnswersOptions {
  readonly audience: Audience;
  readonly listTools: ToolListHandler;
  readonly callTool: ToolCallHandler;
  readonly skills: Pick<SkillsService, 'readResource'>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

// The SDK wraps a tool's non-object output schema for 2025-era clients (its 2025 codec's encodeResult, the only
// step that codec takes): a list holding one takes the SDK's path. Checked once per list object (lists are
// shared and frozen).
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
export function createSessionAnswers(options: SessionAnswersOptions): SessionAnswers {
  const { audience, listTools, callTool, skills } = options;
  return (message, ctx) => {
    const request: PlainRequest | undefined = plainRequestOf(message, SESSION_CONTEXT);
    switch (request?.method) {
      case 'tools/list':
        return listTools().then((result) => {
          if (wrapsOutputSchema(result.tools)) throw SDK_PATH;
          return renderToolList(result.tools);
        });
      case 'tools/call':
        // The request as it came is the handler's: a plain one has exactly `name` and maybe `arguments`.
        return callTool(request, ctx).then((result) => {
          // A 2025-era call is asked to connect with -32042 or a tool error, never input_required.
          if (isInputRequiredResult(result)) throw new Error('input_required answered on a 2025-era session');
          const valid = validToolResult(result);
          // A result built once (get_info's) is written as JSON once too (core/renderedJson.ts).
          return isRenderedOnce(valid) ? renderedResultOf(valid, () => jsonOf(valid)) : valid;
        });
      case 'resources/read':
        return readSkillResourceResult(skills, audience.principal, request.params.uri);
      default:
        return undefined;
    }
  };
}

/** Thrown by a direct answer that turns out to need the SDK's path after all (the transport hands it over). */
export const SDK_PATH = new Error('answered on the SDK path');
