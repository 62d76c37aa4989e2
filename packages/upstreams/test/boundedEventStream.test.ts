import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { ANSWER_TOO_LARGE_CODE, createBoundedEventStream } from '../src/wire/boundedEventStream.js';

async function through(chunks: readonly string[], maxEventBytes: number, maxStreamBytes?: number) {
  const cuts: string[] = [];
  const out = Readable.from(chunks.map((c) => Buffer.from(c))).pipe(
    createBoundedEventStream({
      maxEventBytes,
      maxStreamBytes,
      requestIds: [7],
      onCut: (why) => cuts.push(why),
    }),
  );
  return { body: await text(out), cuts };
}

describe('createBoundedEventStream', () => {
  it('passes many small events through unchanged, whatever the line ends (LF, CRLF, CR)', async () => {
    const events = ['data: a\n\n', 'data: b\r\n\r\n', 'data: c\r\r', 'id: 1\ndata: d\n\n'];
    const many = Array.from({ length: 50 }, () => events.join(''));
    const { body, cuts } = await through(many, 20);
    expect(cuts).toEqual([]);
    expect(body).toBe(many.join(''));
  });

  it('cuts one endless event split over chunks, and answers the request it carried', async () => {
    const { body, cuts } = await through(
      ['event: message\ndata: ', 'x'.repeat(60), 'x'.repeat(60), 'never'],
      100,
    );
    expect(cuts).toEqual(["an event of the upstream's stream is larger than 100 bytes"]);
    expect(body).not.toContain('never');
    const answer = /data: (\{.*\})\n\n$/.exec(body)?.[1] ?? '';
    expect(JSON.parse(answer)).toMatchObject({ id: 7, error: { code: ANSWER_TOO_LARGE_CODE } });
  });

  it('cuts an endless stream of small parts at the stream bound', async () => {
    const { cuts } = await through(
      Array.from({ length: 100 }, () => ': keep-alive\n\n'),
      100,
      500,
    );
    expect(cuts).toEqual(["the upstream's event stream is larger than 500 bytes"]);
  });
});
