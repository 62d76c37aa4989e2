import { LineEnds } from './lineEnds.js';

/** One event of a `text/event-stream` body: its type (`message` when none was given) and its data lines. */
export interface StreamEvent {
  readonly event: string;
  readonly data: string;
}

/** Options of createEventStreamReader. */
export interface EventStreamReaderOptions {
  /** Most bytes of one event (its lines up to the blank line that ends it). */
  readonly maxEventBytes: number;
  /** Most bytes of the whole stream. */
  readonly maxStreamBytes: number;
  /** Each complete event with data, in order. */
  readonly onEvent: (event: StreamEvent) => void;
}

/** Reads an event stream chunk by chunk; push returns why the stream must be cut, or undefined. */
export interface EventStreamReader {
  push(chunk: Buffer): string | undefined;
}

const LF = 0x0a;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA = Buffer.from('data');
const EVENT = Buffer.from('event');

/**
 * A bounded `text/event-stream` parser over bytes, for the answer of one upstream call. Unlike the SDK's
 * (a TextDecoderStream and a string parser that keeps an unfinished line as a growing string), it keeps only
 * the `data` and `event` lines of the current event, as slices of the chunks they came in; it decodes a line
 * once, when it ends; other lines (comments, `id`, `retry`) are counted and skipped. The byte bounds are
 * checked on every chunk, before anything of it is kept, so an endless event costs one scan of its bytes up
 * to the bound and nothing else. Line ends are LF, CRLF or CR, as the format allows.
 */
export function createEventStreamReader(options: EventStreamReaderOptions): EventStreamReader {
  let streamBytes = 0;
  let eventBytes = 0;
  // The current line: whether it is kept (data or event), its kept pieces, its length so far.
  let line: Buffer[] = [];
  let lineBytes = 0;
  let afterCR = false;
  let data: string[] = [];
  let type = '';

  const endLine = (): void => {
    if (lineBytes === 0) {
      // A blank line: the event ends.
      if (data.length > 0) options.onEvent({ event: type === '' ? 'message' : type, data: data.join('\n') });
      data = [];
      type = '';
      eventBytes = 0;
      return;
    }
    const whole = line.length === 1 ? (line[0] as Buffer) : Buffer.concat(line, lineBytes);
    line = [];
    lineBytes = 0;
    const field = fieldOf(whole);
    if (field === undefined) return;
    if (field.name === 'data') data.push(field.value);
    else type = field.value;
  };

  return {
    push(chunk) {
      streamBytes += chunk.length;
      if (streamBytes > options.maxStreamBytes) {
        return `the upstream's event stream is larger than ${options.maxStreamBytes} bytes`;
      }
      let at = 0;
      const lineEnds = new LineEnds(chunk);
      while (at < chunk.length) {
        const end = lineEnds.from(at);
        const stop = end === -1 ? chunk.length : end;
        const text = stop - at;
        eventBytes += end === -1 ? text : text + 1;
        if (eventBytes > options.maxEventBytes) {
          return `an event of the upstream's stream is larger than ${options.maxEventBytes} bytes`;
        }
        if (text > 0) {
          afterCR = false;
          // Only data and event lines are kept: a line is known by its first bytes, so the check is made
          // while the line is still short (a piece that starts it), never on an endless comment.
          if (lineBytes === 0 || line.length > 0) {
            const piece = chunk.subarray(at, stop);
            if (lineBytes > 0 || isKept(piece)) line.push(piece);
          }
          lineBytes += text;
        }
        if (end === -1) break;
        const isLF = chunk[end] === LF;
        at = end + 1;
        if (isLF && afterCR && text === 0) {
          // The LF of a CRLF: the CR already ended the line.
          afterCR = false;
          continue;
        }
        afterCR = !isLF;
        endLine();
      }
      return undefined;
    },
  };
}

// Whether a line that starts with these bytes may be a data or event field. A first piece shorter than the
// field name is kept until the line ends (it is short, so this costs nothing).
function isKept(start: Buffer): boolean {
  return startsLike(start, DATA) || startsLike(start, EVENT);
}

function startsLike(start: Buffer, name: Buffer): boolean {
  const n = Math.min(start.length, name.length);
  return (
    start.subarray(0, n).equals(name.subarray(0, n)) &&
    (start.length <= name.length || isFieldEnd(start[name.length]))
  );
}

function isFieldEnd(byte: number | undefined): boolean {
  return byte === COLON;
}

// A field line: `name: value` (one space after the colon dropped), or `name` alone (empty value).
function fieldOf(line: Buffer): { name: 'data' | 'event'; value: string } | undefined {
  const colon = line.indexOf(COLON);
  const nameEnd = colon === -1 ? line.length : colon;
  const name = line.subarray(0, nameEnd);
  const kind = name.equals(DATA) ? 'data' : name.equals(EVENT) ? 'event' : undefined;
  if (kind === undefined) return undefined;
  if (colon === -1) return { name: kind, value: '' };
  const from = line[colon + 1] === SPACE ? colon + 2 : colon + 1;
  return { name: kind, value: line.toString('utf8', from) };
}
