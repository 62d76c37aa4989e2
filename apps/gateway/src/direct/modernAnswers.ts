import { isInputRequiredResult, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { Principal } from '../auth/accessPolicy.js';
import { createOwnedMemo } from '../core/catalogMemo.js';
import { isRenderedOnce, objectJsonOf } from '../core/renderedJson.js';
import { SDK_ERRORS } from '../errors/sdkErrors.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';
import { type LazyAbort, LazyCallContext } from '../tools/lazyAbort.js';
import type { ToolCallHandler } from '../tools/toolCallHandler.js';
import { type CacheHint, encodeResult } from './encodeResult.js';
import type { PlainRequest } from './plainRequest.js';
import { errorJson, type JsonAnswer, keptResult, keptResultAnswer } from './resultWriter.js';
import { readSkillResourceResult, validToolResult } from './sdkWireAnswers.js';

/** What the direct path needs: the handlers the SDK's per-request server registers, and a way to render once. */
export interface ModernAnswersOptions {
  /** The server identity stamped into every result's `_meta`, as the SDK does. */
  readonly serverInfo: { readonly name: string; readonly version: string };
  /** The current catalog: answers rendered once are kept per catalog object. */
  readonly catalog: () => object;
  /** What a rendered answer depends on besides the catalog: the principal's view (its skill globs). */
  readonly viewKey: (principal: Principal) => string;
  /**
   * The result of a request whose answer depends only on the catalog and the principal (lists, discover), as
   * the SDK's own path computes it; undefined when the SDK answers it with an error.
   */
  readonly renderOnce: (principal: Principal, request: PlainRequest) => Promise<unknown>;
  /** The principal's tools/call handler (the one its SDK server registers). */
  readonly toolCallHandler: (principal: Principal) => ToolCallHandler;
  readonly skills: SkillsService;
  /** The cache hint of the Skills extension for a principal (ttlMs, cacheScope). */
  readonly skillsCacheHint: (principal: Principal) => CacheHint;
}

/**
 * Answers a direct request with the full JSON-RPC response body; undefined hands it to the SDK's path.
 * `abort` is the request's: aborted when the client goes away before the answer (as the SDK's path does).
 */
export type ModernAnswers = (
  principal: Principal,
  request: PlainRequest,
  abort: LazyAbort,
) => Promise<JsonAnswer | undefined>;

/** Renders kept per catalog at most (a bound for gateways with very many principals; then they start over). */
const MAX_RENDERED_PER_CATALOG = 10_000;
/** A plain request's notify: it has no progressToken, so a call never sends anything before its result. */
const NOTHING_TO_SEND = async (): Promise<void> => {};

/**
 * The direct path of 2026-07-28 requests (docs/protocol-eras.md, "Hot paths"): the SDK's per-request work
 * (a server object, its handler table and schemas, web Request/Response streams) is what the profile shows;
 * this path calls the same handlers and writes the same bytes, which the tests in `test/directPaths/` hold
 * equal to the SDK's path request by request. Answers that depend only on (catalog, principal) — lists and
 * discover — are rendered by the SDK once and replayed with the id spliced in.
 */
export function createModernAnswers(options: ModernAnswersOptions): ModernAnswers {
  const rendered = new WeakMap<object, Map<string, Promise<string | Buffer | undefined>>>();
  const serverMeta = { [SERVER_INFO_META_KEY]: options.serverInfo };

  const renderedOnce = (principal: Principal, request: PlainRequest, key: string) => {
    const catalog = options.catalog();
    let perCatalog = rendered.get(catalog);
    if (perCatalog === undefined || perCatalog.size >= MAX_RENDERED_PER_CATALOG) {
      perCatalog = new Map();
      rendered.set(catalog, perCatalog);
    }
    let kept = perCatalog.get(key);
    if (kept === undefined) {
      kept = options.renderOnce(principal, request).then((result) => {
        // An error answer is not kept: the SDK's path answers (and words) it every time.
        if (result === undefined) perCatalog.delete(key);
        return result === undefined ? undefined : keptResult(JSON.stringify(result));
      });
      perCatalog.set(key, kept);
    }
    return kept;
  };

  /** The SDK's encode step (encodeResult.ts), written key by key: large values are written once (renderedJson.ts). */
  const encode = (method: string, result: Readonly<Record<string, unknown>>, cache?: CacheHint): string =>
    objectJsonOf(encodeResult(method, result, serverMeta, cache));

  // An answer made of registered values alone (a get_info result, a skill and its cache hint, a prompt) is the
  // same bytes on every request until the catalog changes: it is encoded once per pair of values, keyed by
  // the values themselves, so it lives as long as they do, and kept as it is best written (keptResult).
  const encodedOnce = createOwnedMemo<object, object | undefined, string | Buffer>();
  const encodeOnce = (value: object, hint: object | undefined, write: () => string): string | Buffer =>
    !isRenderedOnce(value) || (hint !== undefined && !isRenderedOnce(hint))
      ? write()
      : encodedOnce(value, hint, () => keptResult(write()));

  /** A result's JSON, or a kept result (keptResult). */
  const answer = async (
    principal: Principal,
    request: PlainRequest,
    abort: LazyAbort,
  ): Promise<string | Buffer> => {
    switch (request.method) {
      case 'tools/call': {
        const handler = options.toolCallHandler(principal);
        // The request as it came is the handler's (its `_meta` is the envelope alone: no progressToken).
        const result = await handler(
          request,
          // A plain request carries no progressToken, so nothing is ever sent before the result.
          new LazyCallContext(abort, NOTHING_TO_SEND),
        );
        // A call that needs a connected account answers input_required (tools/callCredentials.ts): encoded as the
        // SDK encodes a handler's own resultType.
        const valid = isInputRequiredResult(result) ? { ...result } : validToolResult(result);
        return encodeOnce(valid, undefined, () => encode('tools/call', valid));
      }
      case 'resources/read':
        return encode(
          'resources/read',
          await readSkillResourceResult(options.skills, principal, request.params.uri),
          options.skillsCacheHint(principal),
        );
      case 'skills/get': {
        const skill = options.skills.getSkill(principal, request.params.uri);
        if (skill === undefined) {
          throw SDK_ERRORS.noSkillAt(request.params.uri);
        }
        const hint = options.skillsCacheHint(principal);
        return encodeOnce(skill, hint, () => encode('skills/get', { skill, ...hint }));
      }
      case 'prompts/get': {
        const prompt = options.skills.getPrompt(principal, request.params.name);
        return encodeOnce(prompt, undefined, () => encode('prompts/get', prompt));
      }
      default:
        throw new Error(`${request.method} is rendered once, not answered`);
    }
  };

  return async (principal, request, abort) => {
    if (
      request.method === 'tools/list' ||
      request.method === 'server/discover' ||
      request.method === 'skills/list'
    ) {
      const cursor = request.method === 'skills/list' ? (request.params.cursor ?? '') : '';
      const kept = await renderedOnce(
        principal,
        request,
        `${options.viewKey(principal)}\0${request.method}\0${cursor}`,
      );
      return kept === undefined ? undefined : keptResultAnswer(request.id, kept);
    }
    try {
      return keptResultAnswer(request.id, await answer(principal, request, abort));
    } catch (error) {
      return errorJson(request.id, error);
    }
  };
}
