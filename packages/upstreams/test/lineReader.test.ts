import { describe, expect, it } from 'vitest';
import { createLineReader } from '../src/wire/lineReader.js';

function linesOf(chunks: readonly string[], maxLineBytes = 100) {
  const lines: string[] = [];
  const reader = createLineReader({ maxLineBytes, onLine: (line) => lines.push(line.toString('utf8')) });
  for (const chunk of chunks) reader.push(Buffer.from(chunk));
  return lines;
}

describe('createLineReader', () => {
  it('splits lines wherever the chunks end, drops a CR before the LF and empty lines', () => {
    const stream = '{"a":1}\n{"b":"ä"}\r\n\n{"c":3}\n';
    const whole = linesOf([stream]);
    expect(whole).toEqual(['{"a":1}', '{"b":"ä"}', '{"c":3}']);
    const bytes = Buffer.from(stream);
    for (let at = 1; at < bytes.length; at++) {
      const lines: string[] = [];
      const reader = createLineReader({ maxLineBytes: 100, onLine: (l) => lines.push(l.toString('utf8')) });
      reader.push(bytes.subarray(0, at));
      reader.push(bytes.subarray(at));
      expect(lines).toEqual(whole);
    }
  });

  it('throws once a line passes its bound, whether it ends in the chunk or not', () => {
    expect(() => linesOf([`${'x'.repeat(101)}\n`])).toThrow('larger than 100 bytes');
    expect(() => linesOf(['x'.repeat(60), 'x'.repeat(60)])).toThrow('larger than 100 bytes');
    expect(linesOf([`${'x'.repeat(100)}\n`])).toHaveLength(1);
  });
});
