/**
 * The 2026-07-28 methods answered on the direct path (docs/protocol-eras.md, "Hot paths"): the gateway calls
 * the same handler the SDK's per-request server would, and writes the answer the SDK would write.
 */
export const DIRECT_METHODS = [
  'tools/list',
  'tools/call',
  'resources/read',
  'skills/list',
  'skills/get',
  'prompts/get',
  'server/discover',
] as const;

/** A method answered on the direct path. */
export type DirectMethod = (typeof DIRECT_METHODS)[number];

/** A plain 2026-07-28 request the direct path answers: method, id and the params its handler reads. */
export type DirectRequest =
  | { readonly method: 'tools/list' | 'server/discover'; readonly id: string | number }
  | { readonly method: 'skills/list'; readonly id: string | number; readonly cursor?: string }
  | {
      readonly method: 'tools/call';
      readonly id: string | number;
      readonly name: string;
      readonly arguments?: Record<string, unknown>;
    }
  | { readonly method: 'resources/read' | 'skills/get'; readonly id: string | number; readonly uri: string }
  | { readonly method: 'prompts/get'; readonly id: string | number; readonly name: string };

const DIRECT: ReadonlySet<string> = new Set(DIRECT_METHODS);

/** The request parameter the standard Mcp-Name header repeats, per method (the SDK's own table). */
const NAME_FIELD: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/** The params each method may carry besides `_meta` on the direct path; anything else takes the SDK's. */
const PARAMS: Readonly<Record<DirectMethod, readonly string[]>> = {
  'tools/list': [],
  'server/discover': [],
  'skills/list': ['cursor'],
  'tools/call': ['name', 'arguments'],
  'resources/read': ['uri'],
  'skills/get': ['uri'],
  'prompts/get': ['name'],
};

/** The `_meta` keys of a plain request: the envelope and nothing else (a progressToken wants notifications). */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
]);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const isId = (value: unknown): value is string | number =>
  typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));

/** The top-level keys of a plain request body. */
const BODY_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/** A plain request, and its envelope as JSON (what the SDK's envelope check depends on). */
export interface PlainRequest {
  readonly request: DirectRequest;
  readonly envelopeKey: string;
}

/**
 * The direct request a 2026-07-28 message is, or undefined when the SDK's path must answer it: only requests
 * the SDK would hand to its handler unchanged qualify — a JSON-RPC request with nothing else in the body, a
 * served revision in header and envelope, the standard headers present and equal to the body, an envelope
 * with no other `_meta`, and exactly the params the handler reads, well-typed. Every rejection, every unusual
 * but valid spelling (an encoded Mcp-Name, a progressToken, a tools/list cursor) stays the SDK's to answer.
 * Whether the envelope's values are valid is the SDK's call (routeRequest.ts asks it once per envelope).
 */
export function directRequestOf(
  body: unknown,
  header: (name: string) => string | undefined,
  options: { readonly prompts: boolean; readonly revisions: readonly string[] },
): PlainRequest | undefined {
  if (!isPlainObject(body) || body.jsonrpc !== '2.0') return undefined;
  for (const key in body) if (!BODY_KEYS.has(key)) return undefined;
  const { method, id, params } = body;
  if (typeof method !== 'string' || !DIRECT.has(method) || !isId(id)) return undefined;
  if (method === 'prompts/get' && !options.prompts) return undefined;
  const direct = method as DirectMethod;
  const revision = header('mcp-protocol-version');
  if (revision === undefined || !options.revisions.includes(revision) || header('mcp-method') !== method)
    return undefined;
  if (!isPlainObject(params)) return undefined;
  const allowed = PARAMS[direct];
  for (const key of Object.keys(params)) if (key !== '_meta' && !allowed.includes(key)) return undefined;
  if (!isPlainEnvelope(params._meta, revision)) return undefined;
  const nameField = NAME_FIELD[method];
  const name = header('mcp-name');
  if (nameField === undefined ? name !== undefined : name !== params[nameField]) return undefined;
  const request = requestOf(direct, id, params);
  return request === undefined ? undefined : { request, envelopeKey: JSON.stringify(params._meta) };
}

/** The direct request of a method, from params whose keys were checked; undefined when one is mistyped. */
function requestOf(
  direct: DirectMethod,
  id: string | number,
  params: Record<string, unknown>,
): DirectRequest | undefined {
  switch (direct) {
    case 'tools/list':
    case 'server/discover':
      return { method: direct, id };
    case 'skills/list':
      if (params.cursor === undefined) return { method: direct, id };
      return typeof params.cursor === 'string' ? { method: direct, id, cursor: params.cursor } : undefined;
    case 'tools/call': {
      const args = params.arguments;
      if (typeof params.name !== 'string' || (args !== undefined && !isPlainObject(args))) return undefined;
      return args === undefined
        ? { method: direct, id, name: params.name }
        : { method: direct, id, name: params.name, arguments: args };
    }
    case 'resources/read':
    case 'skills/get':
      return typeof params.uri === 'string' ? { method: direct, id, uri: params.uri } : undefined;
    case 'prompts/get':
      return typeof params.name === 'string' ? { method: direct, id, name: params.name } : undefined;
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

/** Client info fields a plain envelope may carry (all strings); icons and the like take the SDK's path. */
const CLIENT_INFO_KEYS: ReadonlySet<string> = new Set([
  'name',
  'version',
  'title',
  'description',
  'websiteUrl',
]);
