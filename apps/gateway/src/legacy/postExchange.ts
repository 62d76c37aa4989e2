import type { ServerResponse } from 'node:http';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';
import { answerByteLength, type JsonAnswer } from '../direct/resultWriter.js';
import { GatewayError } from '../errors/gatewayError.js';

// What the native transport (nativeHttpTransport.ts) keeps per POST, and how it bounds and writes its answers.

/** One POST: its request ids, which of them are answered, and how the reply is being written. */
export interface PostExchange {
  readonly res: ServerResponse;
  readonly ids: readonly RequestId[];
  /** Ids answered so far. */
  readonly responses: Set<RequestId>;
  /** `pending` until the first message: a lone response then goes out as plain JSON, anything else as SSE. */
  mode: 'pending' | 'sse' | 'done';
  readonly batch: boolean;
  /** Bytes of responses sent on this exchange so far: a batch shares one response byte bound. */
  bytes: number;
  /** A batch's messages not yet handed to the Server: they run one at a time (see dispatchNext). */
  readonly queue: JSONRPCMessage[];
}

/** Headers of an answer streamed as server-sent events. */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};
/**
 * Comments on an idle GET stream this often, so proxies keep it open: a constant of the transport (no config
 * key sets it), not a default.
 */
export const KEEP_ALIVE_MS = 15_000;

/** Bounds the transport enforces on what one POST may cost. */
export interface NativeTransportLimits {
  /** Most messages in a JSON-RPC batch (only revision 2025-03-26 has batches). */
  readonly maxBatch: number;
  /**
   * Largest response to one POST (a batch's answers together); a larger result is answered with an error
   * instead. Also the most output a client may leave unread on one stream before it is closed.
   */
  readonly maxResponseBytes: number;
}

/** One message as an SSE event. */
export const sseEvent = (json: string): string => `event: message\ndata: ${json}\n\n`;

/**
 * A serialized message within the byte bound of its POST: a response (`id` given) that would take the
 * POST's answers past `maxResponseBytes` becomes a RESPONSE_TOO_LARGE error, so no answer (or batch of
 * answers) can exhaust memory. Notifications pass as they are.
 */
export function boundedResponse(
  json: JsonAnswer,
  id: RequestId | undefined,
  maxResponseBytes: number,
  sentBefore: number,
): JsonAnswer {
  const budget = maxResponseBytes - sentBefore;
  // Bytes are at most three per UTF-16 unit: only long strings need the exact count.
  if (id === undefined || (typeof json === 'string' && json.length * 3 <= budget)) return json;
  const bytes = answerByteLength(json);
  if (bytes <= budget) return json;
  const error = new GatewayError(
    'RESPONSE_TOO_LARGE',
    `Response too large: ${bytes} bytes (limit ${maxResponseBytes}${sentBefore > 0 ? ` for the whole batch, ${sentBefore} already sent` : ''})`,
  );
  return JSON.stringify(error.toJsonRpc(id));
}
