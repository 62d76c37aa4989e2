/** Options of createLineReader. */
export interface LineReaderOptions {
  /** Longest line; past it push throws (the connection is dropped). */
  readonly maxLineBytes: number;
  /** Each complete line, without its LF (nor a CR before it). */
  readonly onLine: (line: Buffer) => void;
}

/** Splits a byte stream into lines; push throws past the line bound. */
export interface LineReader {
  push(chunk: Buffer): void;
  clear(): void;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Newline-delimited messages of a stdio server, as bytes. The SDK's ReadBuffer copies everything it holds
 * into one buffer on every chunk (a 16 MiB line read in 64 KiB chunks copies about 2 GiB) and validates
 * each message with zod; here an unfinished line is kept as the chunks it came in, joined once when it
 * ends, and the bound is checked before a chunk is kept.
 */
export function createLineReader(options: LineReaderOptions): LineReader {
  let pieces: Buffer[] = [];
  let held = 0;
  return {
    push(chunk) {
      let at = 0;
      for (let end = chunk.indexOf(LF); end !== -1; end = chunk.indexOf(LF, at)) {
        if (held + end - at > options.maxLineBytes) {
          pieces = [];
          held = 0;
          throw new Error(`a message of the server is larger than ${options.maxLineBytes} bytes`);
        }
        const tail = chunk.subarray(at, end);
        const line = held === 0 ? tail : Buffer.concat([...pieces, tail], held + tail.length);
        pieces = [];
        held = 0;
        at = end + 1;
        const trimmed = line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, -1) : line;
        if (trimmed.length > 0) options.onLine(trimmed);
      }
      if (at < chunk.length) {
        held += chunk.length - at;
        if (held > options.maxLineBytes) {
          pieces = [];
          held = 0;
          throw new Error(`a message of the server is larger than ${options.maxLineBytes} bytes`);
        }
        pieces.push(chunk.subarray(at));
      }
    },
    clear() {
      pieces = [];
      held = 0;
    },
  };
}
