import { type CacheScope, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';

// The SDK's encode contract for a 2026-07-28 result (its rev2026-07-28 codec's `encodeResult`, in
// @modelcontextprotocol/server's dist: stampResultType, then fillCacheFields, then stampServerInfoMeta), for
// the results the direct path builds from handlers. Each step lets the handler win where the SDK does: a
// handler's own `resultType`, a valid `ttlMs`/`cacheScope`, and a `_meta` that already names the server (or
// is not an object) are kept; keys the SDK adds go after the handler's, in the SDK's order. The differential
// tests hold this equal to the SDK's path (test/directPaths/handlerMeta.test.ts). The steps the contract
// takes for other methods (tools/list's deleted fields, a non-'complete' resultType on methods that allow
// only 'complete') concern results the direct path takes from the SDK's own path, or builds without them.

/** The cache hint a cacheable result falls back to when its handler sets none (the SDK's configured hint). */
export interface CacheHint {
  readonly ttlMs: number;
  readonly cacheScope: CacheScope;
}

/** The results whose methods the 2026-07-28 revision makes cacheable, among those the direct path encodes. */
const CACHEABLE: ReadonlySet<string> = new Set(['resources/read']);

const isValidTtlMs = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

const isValidScope = (value: unknown): value is CacheScope => value === 'public' || value === 'private';

/**
 * A handler's 2026-07-28 result as the SDK encodes it: `serverMeta` is `{ [SERVER_INFO_META_KEY]: serverInfo }`
 * (one object per gateway), `cache` the hint of a cacheable method. One object is made, as one spread would.
 */
export function encodeResult(
  method: string,
  result: Readonly<Record<string, unknown>>,
  serverMeta: Readonly<Record<typeof SERVER_INFO_META_KEY, unknown>>,
  cache?: CacheHint,
): Record<string, unknown> {
  const encoded: Record<string, unknown> =
    result.resultType === undefined ? { ...result, resultType: 'complete' } : { ...result };
  if (encoded.resultType === 'complete' && CACHEABLE.has(method)) {
    encoded.ttlMs = isValidTtlMs(result.ttlMs) ? result.ttlMs : (cache?.ttlMs ?? 0);
    encoded.cacheScope = isValidScope(result.cacheScope)
      ? result.cacheScope
      : (cache?.cacheScope ?? 'private');
  }
  const meta = result._meta;
  if (meta === undefined) encoded._meta = serverMeta;
  else if (
    meta !== null &&
    typeof meta === 'object' &&
    !Array.isArray(meta) &&
    (meta as Record<string, unknown>)[SERVER_INFO_META_KEY] === undefined
  )
    encoded._meta = { ...meta, ...serverMeta };
  return encoded;
}
