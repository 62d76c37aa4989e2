import type { ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/server';
import { GatewayError } from '../errors/gatewayError.js';
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

/**
 * The answer of a request whose own answer cannot be serialized (a value circular or nested past the stack,
 * e.g. a SKILL.md frontmatter whose YAML alias names itself): an INTERNAL error, so the POST is still
 * answered. Before, the throw ended in the transport's error handler and the client waited forever.
 */
export function unwritableAnswerJson(id: RequestId, error: unknown): string {
  const why = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  const refusal = new GatewayError('INTERNAL', `Internal error: the answer could not be written (${why})`, {
    cause: error,
  });
  return JSON.stringify(refusal.toJsonRpc(id));
}

/**
 * A message as JSON; a response (`responseId` given) that cannot be serialized becomes the INTERNAL error
 * unwritableAnswerJson writes, so its request is still answered. A notification that cannot be throws.
 */
export function messageJson(message: unknown, responseId: RequestId | undefined): string {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if (responseId === undefined) throw error;
    return unwritableAnswerJson(responseId, error);
  }
}

/** Below this many characters a kept result stays text: joining a short text costs less than a write in pieces. */
const KEEP_AS_BYTES_FROM = 8192;

/**
 * A result kept across requests, as it is best kept for writing: a long one as the opening bytes
 * `{"result":…` of every response carrying it, so such a response is written without joining, measuring or
 * encoding the result's text again per request (a 100 KB skills/list page was half its CPU that way); a
 * short one as its JSON text.
 */
export const keptResult = (result: string): string | Buffer =>
  result.length < KEEP_AS_BYTES_FROM ? result : Buffer.from(`{"result":${result}`);

/** A response whose result's opening bytes are kept (keptResult): only its end, with the id, is new. */
export class KeptAnswer {
  constructor(
    readonly head: Buffer,
    readonly tail: string,
  ) {}
}

/** A direct path's one JSON answer: its text, or a kept result's bytes and their end. */
export type JsonAnswer = string | KeptAnswer;

/** The response carrying a kept result (keptResult): the same bytes as resultJson's either way. */
export const keptResultAnswer = (id: RequestId, kept: string | Buffer): JsonAnswer =>
  typeof kept === 'string'
    ? resultJson(id, kept)
    : new KeptAnswer(kept, `,"jsonrpc":"2.0","id":${JSON.stringify(id)}}`);

/** An answer's length in bytes. */
export const answerByteLength = (answer: JsonAnswer): number =>
  typeof answer === 'string'
    ? Buffer.byteLength(answer)
    : answer.head.length + Buffer.byteLength(answer.tail);

/** An answer's text, for where it is written as text (an event of a stream). */
export const answerText = (answer: JsonAnswer): string =>
  typeof answer === 'string' ? answer : `${answer.head.toString('utf8')}${answer.tail}`;

/** The headers of a POST's one JSON answer; a 2025-era session's answer names the session. */
const answerHeaders = (length: number, sessionId: string | undefined) =>
  sessionId === undefined
    ? { 'content-type': 'application/json', 'content-length': length }
    : { 'content-type': 'application/json', 'content-length': length, 'mcp-session-id': sessionId };

/** Ends a POST's response with its one JSON answer; a 2025-era session's answer names the session. */
export function writeJsonAnswer(res: ServerResponse, answer: JsonAnswer, sessionId?: string): void {
  if (typeof answer === 'string') {
    res.writeHead(200, answerHeaders(Buffer.byteLength(answer), sessionId));
    res.end(answer);
    return;
  }
  res.writeHead(200, answerHeaders(answerByteLength(answer), sessionId));
  // Corked, the head lines, the kept bytes and the end leave in one write (end() uncorks fully).
  res.cork();
  res.write(answer.head);
  res.end(answer.tail);
}
