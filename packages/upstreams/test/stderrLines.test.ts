import { describe, expect, it } from 'vitest';
import { createStderrLines } from '../src/connection/stderrLines.js';

describe('createStderrLines', () => {
  it('logs whole lines, joins split chunks and cuts an overlong line', () => {
    const lines: string[] = [];
    const feed = createStderrLines({
      bytesPerMinute: 10_000,
      maxLineBytes: 8,
      log: (line) => lines.push(line),
    });
    feed(Buffer.from('one\ntw'));
    feed(Buffer.from('o\n\n'));
    feed(Buffer.from('abcdefghijklmnop'));
    expect(lines).toEqual(['one', 'two', 'abcdefgh']);
  });

  it('drops lines past the budget of a minute', () => {
    const lines: string[] = [];
    const feed = createStderrLines({ bytesPerMinute: 10, log: (line) => lines.push(line) });
    for (let i = 0; i < 100; i++) feed(Buffer.from('12345\n'));
    expect(lines).toEqual(['12345', '12345']);
  });
});
