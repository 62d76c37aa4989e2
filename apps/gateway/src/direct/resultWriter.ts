import type { ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';
import { errorObjectOf } from './sdkWireAnswers.js';

// What both eras' direct paths write, in one place: the JSON-RPC response in the SDK's key order (its
// serializer writes `result` before `jsonrpc` and `id`), errors as the SDK writes them, and the one JSON
// answer of a POST with a length instead of chunked framing (one frame less for the client to parse).

/** The response carrying a result that is already JSON (the bytes JSON.stringify gives the SDK's message). */
export const resultJson = (id: RequestId, result: string): string =>
  `{"result":${result},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

/** The response carrying a thrown error, as the SDK writes it. */
export const errorJson = (id: RequestId, error: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, error: errorObjectOf(error) });

/** Ends a POST's response with its one JSON answer; a 2025-era session's answer names the session. */
export function writeJsonAnswer(res: ServerResponse, json: string, sessionId?: string): void {
  res.writeHead(
    200,
    sessionId === undefined
      ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }
      : {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(json),
          'mcp-session-id': sessionId,
        },
  );
  res.end(json);
}
