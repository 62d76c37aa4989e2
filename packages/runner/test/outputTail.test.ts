import { describe, expect, it } from 'vitest';
import { OutputTail } from '../src/outputTail.js';

function tailOf(maxBytes: number, ...chunks: string[]): OutputTail {
  const tail = new OutputTail(maxBytes);
  for (const chunk of chunks) tail.push(Buffer.from(chunk));
  return tail;
}

describe('OutputTail', () => {
  it('keeps the last maxBytes across chunks and counts every byte', () => {
    const tail = tailOf(5, 'abc', 'defg', 'hi');
    expect(tail.snapshot(10)).toEqual({ text: 'efghi', truncated: true, bytes: 9 });
  });

  it('keeps the tail of a single chunk larger than maxBytes', () => {
    expect(tailOf(4, `${'x'.repeat(10_000)}tail`).snapshot(10)).toEqual({
      text: 'tail',
      truncated: true,
      bytes: 10_004,
    });
  });

  it('drops the orphaned bytes of a character split by the cut', () => {
    // '✓' is 3 bytes: a 5-byte tail of 'a✓b✓' starts inside the first '✓'.
    expect(tailOf(5, 'a✓b✓').snapshot(10).text).toBe('b✓');
  });

  it('counts a final newline as the end of the last line, not a new one', () => {
    const tail = tailOf(100, '1\n2\n3\n');
    expect(tail.snapshot(2)).toEqual({ text: '2\n3\n', truncated: true, bytes: 6 });
    expect(tail.snapshot(3)).toEqual({ text: '1\n2\n3\n', truncated: false, bytes: 6 });
  });

  it('handles a last line without newline and leading empty lines', () => {
    expect(tailOf(100, '1\n2').snapshot(1).text).toBe('2');
    expect(tailOf(100, '\nb\n').snapshot(3)).toEqual({ text: '\nb\n', truncated: false, bytes: 3 });
  });

  it('returns nothing for zero tail lines and flags output as cut', () => {
    expect(tailOf(100, 'x').snapshot(0)).toEqual({ text: '', truncated: true, bytes: 1 });
    expect(tailOf(100).snapshot(0)).toEqual({ text: '', truncated: false, bytes: 0 });
  });

  it('stays exact when many tiny writes are merged', () => {
    const tail = new OutputTail(10_000);
    for (let i = 0; i < 20_000; i++) tail.push(Buffer.from(String(i % 10)));
    const { text, bytes } = tail.snapshot(1);
    expect(bytes).toBe(20_000);
    expect(text).toHaveLength(10_000);
    expect(text.endsWith('789')).toBe(true);
  });

  it('reports the last non-empty line for progress, after a carriage return, cut to its start', () => {
    expect(tailOf(100, 'one\ntwo\n\n').lastLine()).toBe('two');
    expect(tailOf(100, 'loading 10%\rloading 55%').lastLine()).toBe('loading 55%');
    expect(tailOf(100, '').lastLine()).toBe('');
    expect(tailOf(10_000, `${'y'.repeat(500)}\n`).lastLine(10)).toBe(`${'y'.repeat(9)}…`);
  });
});
