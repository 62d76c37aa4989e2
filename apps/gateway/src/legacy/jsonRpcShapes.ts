import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';

// The structural checks of the native transport (nativeHttpTransport.ts): not schema parses, since incoming
// messages were validated once on arrival and outgoing ones come from the SDK's Server or the session's
// direct path (re-parsing a large tools/list result per send would be costly).

/**
 * The envelope check of a JSON-RPC 2.0 message, returning it with only the members JSON-RPC defines
 * (an unknown extra top-level key would make the SDK drop the message unanswered). Params are validated
 * by the SDK's Server against each method's schema, so a full schema parse here would validate twice.
 */
export function toJsonRpcMessage(value: unknown): JSONRPCMessage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const validId = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id));
  const clean: Record<string, unknown> = { jsonrpc: '2.0' };
  for (const key of ['id', 'method', 'params', 'result', 'error']) if (key in m) clean[key] = m[key];
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
