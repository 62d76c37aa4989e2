import { type CacheScope, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { Principal } from '../auth/accessPolicy.js';
import { createOwnedMemo } from '../core/catalogMemo.js';
import { isRenderedOnce, objectJsonOf } from '../core/renderedJson.js';
import { SDK_ERRORS } from '../errors/sdkErrors.js';
import { errorObjectOf, readSkillResourceResult, validToolResult } from '../mcp/sdkWireAnswers.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';
import { type LazyAbort, LazyCallContext } from '../tools/lazyAbort.js';
import type { ToolCallHandler } from '../tools/toolHandlers.js';
import type { DirectRequest } from './directRequest.js';

/** What the direct path needs: the handlers the SDK's per-request server registers, and a way to render once. */
export interface DirectAnswersOptions {
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
  readonly renderOnce: (principal: Principal, request: DirectRequest) => Promise<unknown>;
  /** The principal's tools/call handler (the one its SDK server registers). */
  readonly toolCallHandler: (principal: Principal) => ToolCallHandler;
  readonly skills: SkillsService;
  /** The cache hint of the Skills extension for a principal (ttlMs, cacheScope). */
  readonly skillsCacheHint: (principal: Principal) => {
    readonly ttlMs: number;
    readonly cacheScope: CacheScope;
  };
}

/**
 * Answers a direct request with the full JSON-RPC response body; undefined hands it to the SDK's path.
 * `abort` is the request's: aborted when the client goes away before the answer (as the SDK's path does).
 */
export type DirectAnswers = (
  principal: Principal,
  request: DirectRequest,
  abort: LazyAbort,
) => Promise<string | undefined>;

/** Renders kept per catalog at most (a bound for gateways with very many principals; then they start over). */
const MAX_RENDERED_PER_CATALOG = 10_000;
/** A plain request's notify: it has no progressToken, so a call never sends anything before its result. */
const NOTHING_TO_SEND = async (): Promise<void> => {};

/**
 * The direct path of 2026-07-28 requests (docs/protocol-eras.md, "Hot paths"): the SDK's per-request work
 * (a server object, its handler table and schemas, web Request/Response streams) is what the profile shows;
 * this path calls the same handlers and writes the same bytes, which the test `directAnswers.test.ts` holds
 * equal to the SDK's path request by request. Answers that depend only on (catalog, principal) — lists and
 * discover — are rendered by the SDK once and replayed with the id spliced in.
 */
export function createDirectAnswers(options: DirectAnswersOptions): DirectAnswers {
  const rendered = new WeakMap<object, Map<string, Promise<string | undefined>>>();
  const serverMeta = { [SERVER_INFO_META_KEY]: options.serverInfo };

  const renderedOnce = (principal: Principal, request: DirectRequest, key: string) => {
    const catalog = options.catalog();
    let perCatalog = rendered.get(catalog);
    if (perCatalog === undefined || perCatalog.size >= MAX_RENDERED_PER_CATALOG) {
      perCatalog = new Map();
      rendered.set(catalog, perCatalog);
    }
    let json = perCatalog.get(key);
    if (json === undefined) {
      json = options.renderOnce(principal, request).then((result) => {
        // An error answer is not kept: the SDK's path answers (and words) it every time.
        if (result === undefined) perCatalog.delete(key);
        return result === undefined ? undefined : JSON.stringify(result);
      });
      perCatalog.set(key, json);
    }
    return json;
  };

  /** The SDK's encode seam for 2026-07-28 results: resultType, cache fields where cacheable, serverInfo. */
  const encode = (result: Record<string, unknown>, cache?: object): string => {
    const meta = result._meta;
    const stamped =
      meta === undefined
        ? { ...result, resultType: 'complete', ...cache, _meta: serverMeta }
        : { ...result, resultType: 'complete', ...cache, _meta: { ...(meta as object), ...serverMeta } };
    // Written key by key: the large values (instructions, a skill, a prompt) are written once (renderedJson.ts).
    return objectJsonOf(stamped);
  };

  // An answer made of registered values alone (a get_info result, a skill and its cache hint, a prompt) is the
  // same bytes on every request until the catalog changes: it is encoded once per pair of values, keyed by
  // the values themselves, so it lives as long as they do.
  const encodedOnce = createOwnedMemo<object, object | undefined, string>();
  const encodeOnce = (value: object, hint: object | undefined, write: () => string): string =>
    !isRenderedOnce(value) || (hint !== undefined && !isRenderedOnce(hint))
      ? write()
      : encodedOnce(value, hint, write);

  const answer = async (principal: Principal, request: DirectRequest, abort: LazyAbort): Promise<string> => {
    switch (request.method) {
      case 'tools/call': {
        const handler = options.toolCallHandler(principal);
        const result = await handler(
          {
            method: 'tools/call',
            params: {
              name: request.name,
              ...(request.arguments === undefined ? {} : { arguments: request.arguments }),
            },
          },
          // A plain request carries no progressToken, so nothing is ever sent before the result.
          new LazyCallContext(abort, NOTHING_TO_SEND),
        );
        const valid = validToolResult(result);
        return encodeOnce(valid, undefined, () => encode(valid));
      }
      case 'resources/read':
        return encode(
          await readSkillResourceResult(options.skills, principal, request.uri),
          options.skillsCacheHint(principal),
        );
      case 'skills/get': {
        const skill = options.skills.getSkill(principal, request.uri);
        if (skill === undefined) {
          throw SDK_ERRORS.noSkillAt(request.uri);
        }
        const hint = options.skillsCacheHint(principal);
        return encodeOnce(skill, hint, () => encode({ skill, ...hint }));
      }
      case 'prompts/get': {
        const prompt = options.skills.getPrompt(principal, request.name);
        return encodeOnce(prompt, undefined, () => encode({ ...prompt }));
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
      const cursor = request.method === 'skills/list' ? (request.cursor ?? '') : '';
      const json = await renderedOnce(
        principal,
        request,
        `${options.viewKey(principal)}\0${request.method}\0${cursor}`,
      );
      return json === undefined
        ? undefined
        : `{"result":${json},"jsonrpc":"2.0","id":${JSON.stringify(request.id)}}`;
    }
    try {
      return `{"result":${await answer(principal, request, abort)},"jsonrpc":"2.0","id":${JSON.stringify(request.id)}}`;
    } catch (error) {
      return errorBody(request.id, error);
    }
  };
}

/** A thrown error as the SDK writes it for a 2026-07-28 request. */
function errorBody(id: string | number, error: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: errorObjectOf(error) });
}
