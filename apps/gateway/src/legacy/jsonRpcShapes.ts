import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';

// The structural checks of the native transport (nativeHttpTransport.ts): not schema parses, since incoming
// messages were validated once on arrival and outgoing ones come from the SDK's Server or the session's
// direct path (re-parsing a large tools/list result per send would be costly).

/**
 * The envelope check of a JSON-RPC 2.0 message, returning it with only the members JSON-RPC defines
 * (an unknown extra top-level key would make the SDK drop the message unanswered). Params are validated
 * by the SDK's Server against each method's schema, so a full schema parse here would validate twice.
 */
function toJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const validId = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id));
  // Member by member (not a loop over names): this runs for every message a session posts.
  const clean: Record<string, unknown> = { jsonrpc: '2.0' };
  if ('id' in m) clean.id = m.id;
  if ('method' in m) clean.method = m.method;
  if ('params' in m) clean.params = m.params;
  if ('result' in m) clean.result = m.result;
  if ('error' in m) clean.error = m.error;
  if (typeof m.method === 'string') return !('id' in m) || validId ? (clean as JSONRPCMessage) : undefined;
  return validId && ('result' in m || 'error' in m) ? (clean as JSONRPCMessage) : undefined;
}

/** A request: a method and an id. */
export const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId; method: string } =>
  'method' in m && 'id' in m;

/** A response: an id and no method. */
export const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } =>
  !('method' in m) && 'id' in m;

/** A client's `notifications/cancelled`. */
export const isCancellation = (
  m: JSONRPCMessage,
): m is JSONRPCMessage & { method: 'notifications/cancelled'; params?: { requestId?: unknown } } =>
  'method' in m && m.method === 'notifications/cancelled' && !('id' in m);

/** The only revision that allowed JSON-RPC batches (they were removed in 2025-06-18). */
const BATCH_REVISION = '2025-03-26';

/** What a session knows when a POST arrives. */
export interface PostContext {
  /** The revision the session negotiated; undefined before initialize. */
  readonly revision: string | undefined;
  readonly initialized: boolean;
  /** Most messages in a JSON-RPC batch. */
  readonly maxBatch: number;
}

/** What a POST carries, once accepted. */
export interface PostedMessages {
  readonly messages: JSONRPCMessage[];
  readonly batch: boolean;
  /** The ids of its requests, in order. */
  readonly requestIds: RequestId[];
  /** Whether it is an initialize. */
  readonly initialize: boolean;
}

/**
 * The messages of a POST body, or why the POST is refused (-32600): a batch outside a 2025-03-26 session or
 * outside 1..maxBatch, a message that is not JSON-RPC 2.0, an initialize that is not alone or not the first.
 */
export function postedMessages(
  body: unknown,
  context: PostContext,
): PostedMessages | { readonly refusal: string } {
  const batch = Array.isArray(body);
  const raw: unknown[] = batch ? body : [body];
  if (batch && context.revision !== BATCH_REVISION) {
    return { refusal: `JSON-RPC batches are not part of MCP ${context.revision ?? 'before initialize'}` };
  }
  if (batch && (raw.length === 0 || raw.length > context.maxBatch)) {
    return { refusal: `a batch must hold 1 to ${context.maxBatch} messages` };
  }
  // One pass (a POST holds one message unless it is a batch): the messages, their request ids, initialize.
  const messages: JSONRPCMessage[] = [];
  const requestIds: RequestId[] = [];
  let initialize = false;
  for (const item of raw) {
    const message = toJsonRpcMessage(item);
    if (message === undefined) return { refusal: 'not a JSON-RPC 2.0 message' };
    messages.push(message);
    if (isRequest(message)) requestIds.push(message.id);
    if ('method' in message && message.method === 'initialize') initialize = true;
  }
  if (initialize && (context.initialized || messages.length > 1)) {
    return { refusal: 'initialize must come alone, once per session' };
  }
  return { messages, batch, requestIds, initialize };
}
