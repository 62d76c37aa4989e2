import { describe, expect, it } from 'vitest';
import { lastLinesOf } from '../src/lastLinesOf.js';

const output = (stdout: string, stderr = '') => ({
  stdout,
  stderr,
  stdout_truncated: false,
  stderr_truncated: false,
  stdout_bytes: Buffer.byteLength(stdout),
  stderr_bytes: Buffer.byteLength(stderr),
});

describe("a job's output read by lines", () => {
  // Moved from the state package's job store test, whose get() cut by lines before the registry did.
  it('keeps the last lines of each stream, flags the cut and keeps the byte counts', () => {
    expect(lastLinesOf(output('a\nb\nc\n'), 2)).toMatchObject({
      stdout: 'b\nc\n',
      stdout_truncated: true,
      stdout_bytes: 6,
    });
  });

  it('returns the output as kept when no line count is given', () => {
    const kept = output('a\nb\n', 'warn');
    expect(lastLinesOf(kept, undefined)).toBe(kept);
  });
});
