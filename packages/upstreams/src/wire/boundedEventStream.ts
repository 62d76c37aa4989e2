import { Transform, type TransformCallback } from 'node:stream';
import { LineEnds } from './lineEnds.js';

/** JSON-RPC error code of the answer the gateway writes in place of an event stream over its bound. */
export const ANSWER_TOO_LARGE_CODE = -32_099;

/** Options of createBoundedEventStream. */
export interface BoundedEventStreamOptions {
  /** Most bytes of one event (its lines up to the blank line that ends it). */
  readonly maxEventBytes: number;
  /** Most bytes of the whole stream; undefined for a stream that lives as long as the connection. */
  readonly maxStreamBytes: number | undefined;
  /** Ids of the requests the stream answers: each gets a JSON-RPC error when the stream is cut. */
  readonly requestIds: readonly (string | number)[];
  /** Called once when the stream is cut, with why (the caller stops the upstream's response). */
  readonly onCut: (reason: string) => void;
}

const LF = 0x0a;

/**
 * A byte-counting pass-through for an upstream's `text/event-stream` body, under the SDK's parser: the
 * parser keeps an event whole until the blank line that ends it, so one endless event grew the gateway by
 * 565 MB. Past either bound the stream ends with a JSON-RPC error for each request it answers (code
 * ANSWER_TOO_LARGE_CODE), so the waiting call fails at once as RESULT_TOO_LARGE instead of waiting for its
 * timeout, and the upstream's response is stopped. Line ends are LF, CRLF or CR, as the SSE format allows.
 */
export function createBoundedEventStream(options: BoundedEventStreamOptions): Transform {
  let eventBytes = 0;
  let streamBytes = 0;
  let lineBytes = 0;
  let afterCR = false;
  let cut = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      if (cut) {
        callback();
        return;
      }
      streamBytes += chunk.length;
      let largest = 0;
      let at = 0;
      const lineEnds = new LineEnds(chunk);
      while (at < chunk.length) {
        const end = lineEnds.from(at);
        if (end === -1) {
          const rest = chunk.length - at;
          afterCR = false;
          lineBytes += rest;
          eventBytes += rest;
          break;
        }
        const text = end - at;
        eventBytes += text + 1;
        const isLF = chunk[end] === LF;
        at = end + 1;
        if (text > 0) {
          lineBytes += text;
          afterCR = false;
        }
        if (isLF && afterCR) {
          // The LF of a CRLF: the CR already ended the line.
          afterCR = false;
          continue;
        }
        afterCR = !isLF;
        if (lineBytes > 0) lineBytes = 0;
        else {
          // A blank line: the event ends here.
          if (eventBytes > largest) largest = eventBytes;
          eventBytes = 0;
        }
      }
      if (eventBytes > largest) largest = eventBytes;
      const over =
        largest > options.maxEventBytes
          ? `an event of the upstream's stream is larger than ${options.maxEventBytes} bytes`
          : options.maxStreamBytes !== undefined && streamBytes > options.maxStreamBytes
            ? `the upstream's event stream is larger than ${options.maxStreamBytes} bytes`
            : undefined;
      if (over === undefined) {
        callback(null, chunk);
        return;
      }
      cut = true;
      // The parser may hold part of an event: a blank line ends it (it fails to parse and is dropped).
      const errors = options.requestIds.map(
        (id) =>
          `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: ANSWER_TOO_LARGE_CODE, message: over } })}\n\n`,
      );
      this.push(`\n\n${errors.join('')}`);
      this.push(null);
      options.onCut(over);
      callback();
    },
  });
}
