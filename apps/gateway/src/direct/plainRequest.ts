import type { RequestMeta } from '@modelcontextprotocol/server';

// Which requests the direct paths of both eras may answer (docs/protocol-eras.md, "Hot paths"), in one place:
// the shape of the message, the method, the id and the params. A plain request is the message itself, typed:
// recognising one copies nothing.

/** The methods a 2026-07-28 request may take the direct path with. */
const MODERN_METHODS: ReadonlySet<string> = new Set([
  'tools/list',
  'tools/call',
  'resources/read',
  'skills/list',
  'skills/get',
  'prompts/get',
  'server/discover',
]);

/** The methods a 2025-era session's request may take the direct path with. */
const SESSION_METHODS: ReadonlySet<string> = new Set(['tools/list', 'tools/call', 'resources/read']);

/** The params each method may carry (besides the 2026-07-28 envelope in `_meta`); anything else takes the SDK's path. */
const PARAMS: Readonly<Record<string, readonly string[]>> = {
  'tools/list': [],
  'server/discover': [],
  'skills/list': ['cursor'],
  'tools/call': ['name', 'arguments'],
  'resources/read': ['uri'],
  'skills/get': ['uri'],
  'prompts/get': ['name'],
};

/** The request parameter the standard Mcp-Name header repeats, per method (the SDK's own table). */
const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The `_meta` keys of a plain request: the envelope and nothing else (a progressToken wants notifications). */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
]);

/** Client info fields a plain envelope may carry (all strings); icons and the like take the SDK's path. */
const CLIENT_INFO_KEYS: ReadonlySet<string> = new Set([
  'name',
  'version',
  'title',
  'description',
  'websiteUrl',
]);

/** The top-level keys of a plain request. */
const BODY_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/** One plain request: a JSON-RPC request of `method` whose params are exactly `P` (plus, in 2026-07-28, the envelope). */
interface Plain<M extends string, P> {
  readonly jsonrpc: '2.0';
  readonly id: string | number;
  readonly method: M;
  readonly params: P & { readonly _meta?: RequestMeta };
}

/** A request a direct path answers, as it arrived (typed, not copied). */
export type PlainRequest =
  // A 2025-era session's tools/list may come without params.
  | (Omit<Plain<'tools/list', object>, 'params'> & {
      readonly params?: Plain<'tools/list', object>['params'];
    })
  | Plain<'server/discover', object>
  | Plain<'skills/list', { readonly cursor?: string }>
  | Plain<'tools/call', { readonly name: string; readonly arguments?: Record<string, unknown> }>
  | Plain<'resources/read' | 'skills/get', { readonly uri: string }>
  | Plain<'prompts/get', { readonly name: string }>;

/** Where a message arrived, and what its era's direct path may answer. */
export type PlainContext =
  /** On an initialized 2025-era session: no `_meta` at all, no headers to compare. */
  | { readonly era: 'session' }
  | {
      readonly era: 'modern';
      /** Whether prompts are served (`skills.prompts`): only then is prompts/get plain. */
      readonly prompts: boolean;
      /** The 2026 revisions served. */
      readonly revisions: readonly string[];
      readonly header: (name: string) => string | undefined;
    };

/** The context of every 2025-era session message. */
export const SESSION_CONTEXT: PlainContext = { era: 'session' };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));

/**
 * The message as a plain request, or undefined when the SDK's path must answer it: only requests the SDK would
 * hand to its handler unchanged qualify — a JSON-RPC request with nothing else in the message and exactly the
 * params the handler reads, well-typed; in 2026-07-28 also a served revision in header and envelope, the
 * standard headers present and equal to the body, and an envelope with no other `_meta`; on a 2025-era
 * session no `_meta` at all and `tools/list` may come without params. Every rejection, every unusual but
 * valid spelling (an encoded Mcp-Name, a progressToken, a tools/list cursor) stays the SDK's to answer.
 * Whether a 2026 envelope's values are valid is the SDK's call (http/routeRequest.ts asks it once per envelope).
 */
export function plainRequestOf(message: unknown, context: PlainContext): PlainRequest | undefined {
  if (!isPlainObject(message) || message.jsonrpc !== '2.0') return undefined;
  const modern = context.era === 'modern';
  // A session's messages arrive with only JSON-RPC's members (legacy/jsonRpcShapes.ts); a body as it came.
  if (modern) for (const key in message) if (!BODY_KEYS.has(key)) return undefined;
  const { method, id, params } = message;
  if (typeof method !== 'string' || !isId(id)) return undefined;
  if (!(modern ? MODERN_METHODS : SESSION_METHODS).has(method)) return undefined;
  if (modern) {
    if (method === 'prompts/get' && !context.prompts) return undefined;
    const revision = context.header('mcp-protocol-version');
    if (
      revision === undefined ||
      !context.revisions.includes(revision) ||
      context.header('mcp-method') !== method ||
      !isPlainObject(params) ||
      !isPlainEnvelope(params._meta, revision)
    )
      return undefined;
    const nameField = NAME_FIELD[method];
    const name = context.header('mcp-name');
    if (nameField === undefined ? name !== undefined : name !== params[nameField]) return undefined;
  } else if (params === undefined) {
    return method === 'tools/list' ? (message as unknown as PlainRequest) : undefined;
  } else if (!isPlainObject(params) || '_meta' in params) return undefined;
  const allowed = PARAMS[method] ?? [];
  for (const key in params) if (key !== '_meta' && !allowed.includes(key)) return undefined;
  return wellTyped(method, params) ? (message as unknown as PlainRequest) : undefined;
}

/** Whether the params a method's handler reads have their types (the keys were checked). */
function wellTyped(method: string, params: Record<string, unknown>): boolean {
  switch (method) {
    case 'skills/list':
      return params.cursor === undefined || typeof params.cursor === 'string';
    case 'tools/call':
      return (
        typeof params.name === 'string' && (params.arguments === undefined || isPlainObject(params.arguments))
      );
    case 'resources/read':
    case 'skills/get':
      return typeof params.uri === 'string';
    case 'prompts/get':
      return typeof params.name === 'string';
    default:
      return true;
  }
}

/** The envelope of a plain request: the served revision, well-formed client info and capabilities, nothing more. */
function isPlainEnvelope(meta: unknown, revision: string): boolean {
  if (!isPlainObject(meta)) return false;
  for (const key of Object.keys(meta)) if (!ENVELOPE_KEYS.has(key)) return false;
  if (meta['io.modelcontextprotocol/protocolVersion'] !== revision) return false;
  if (!isPlainObject(meta['io.modelcontextprotocol/clientCapabilities'])) return false;
  const info = meta['io.modelcontextprotocol/clientInfo'];
  if (info === undefined) return true;
  if (!isPlainObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') return false;
  return Object.keys(info).every((key) => CLIENT_INFO_KEYS.has(key) && typeof info[key] === 'string');
}
