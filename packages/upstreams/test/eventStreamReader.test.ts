import { describe, expect, it } from 'vitest';
import { createEventStreamReader, type StreamEvent } from '../src/wire/eventStreamReader.js';

function read(chunks: readonly string[], maxEventBytes = 1000, maxStreamBytes = 100_000) {
  const events: StreamEvent[] = [];
  const reader = createEventStreamReader({ maxEventBytes, maxStreamBytes, onEvent: (e) => events.push(e) });
  let cut: string | undefined;
  let pushed = 0;
  for (const chunk of chunks) {
    pushed += 1;
    cut = reader.push(Buffer.from(chunk));
    if (cut !== undefined) break;
  }
  return { events, cut, pushed };
}

describe('createEventStreamReader', () => {
  it('reads events whatever the line ends (LF, CRLF, CR) and wherever the chunks split them', () => {
    const stream = 'data: a\n\nevent: message\r\ndata: {"b":1}\r\n\r\ndata: c\r\rid: 4\ndata: d\n\n';
    const whole = read([stream]).events;
    expect(whole).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: '{"b":1}' },
      { event: 'message', data: 'c' },
      { event: 'message', data: 'd' },
    ]);
    // Every split into two chunks, a CRLF split between them included, reads the same.
    for (let at = 1; at < stream.length; at++) {
      expect(read([stream.slice(0, at), stream.slice(at)]).events).toEqual(whole);
    }
    // And one byte at a time.
    expect(read([...stream]).events).toEqual(whole);
  });

  it('joins data lines, keeps the event type, and skips comments, ids, retries and unknown fields', () => {
    const { events } = read([
      ': a comment\nretry: 10\nid: 7\ndatum: no\nevent: other\ndata: one\ndata\ndata:two\n\n',
      'data: x\n\n',
    ]);
    expect(events).toEqual([
      { event: 'other', data: 'one\n\ntwo' },
      { event: 'message', data: 'x' },
    ]);
  });

  it('an event without data is no event; UTF-8 split over chunks is decoded whole', () => {
    const bytes = Buffer.from('event: message\n\ndata: ä€\n\n');
    const events: StreamEvent[] = [];
    const reader = createEventStreamReader({
      maxEventBytes: 100,
      maxStreamBytes: 100,
      onEvent: (e) => events.push(e),
    });
    for (let i = 0; i < bytes.length; i++) reader.push(bytes.subarray(i, i + 1));
    expect(events).toEqual([{ event: 'message', data: 'ä€' }]);
  });

  it('cuts one endless event on the chunk that passes the event bound, before it ends', () => {
    const { cut, pushed, events } = read(
      ['event: message\ndata: ', ...Array.from({ length: 50 }, () => 'x'.repeat(60))],
      100,
    );
    expect(cut).toBe("an event of the upstream's stream is larger than 100 bytes");
    expect(pushed).toBe(3);
    expect(events).toEqual([]);
  });

  it('cuts endless small comment lines at the stream bound', () => {
    const { cut, pushed } = read(
      Array.from({ length: 100 }, () => ': keep-alive\n\n'),
      100,
      500,
    );
    expect(cut).toBe("the upstream's event stream is larger than 500 bytes");
    expect(pushed).toBe(Math.ceil(501 / ': keep-alive\n\n'.length));
  });
});
