import { describe, expect, it } from 'vitest';
import { createSecretScrubber } from '../src/calls/secretScrubber.js';

describe('createSecretScrubber', () => {
  it('replaces each value, the token after a header scheme, in strings and keys at any depth', () => {
    const scrub = createSecretScrubber(['Bearer abcdefgh12345678', 'k"ey\\value']);
    const value = {
      content: [{ type: 'text', text: 'got Bearer abcdefgh12345678 and abcdefgh12345678' }],
      nested: { abcdefgh12345678: ['k"ey\\value'] },
      n: 3,
    };
    expect(scrub.json(value)).toEqual({
      content: [{ type: 'text', text: 'got [redacted] and [redacted]' }],
      nested: { '[redacted]': ['[redacted]'] },
      n: 3,
    });
  });

  it('returns the same value when no secret occurs, and ignores empty values', () => {
    const scrub = createSecretScrubber(['', '  ', 'secret-value-1']);
    const value = { text: 'nothing here' };
    expect(scrub.json(value)).toBe(value);
    expect(scrub.text('a secret-value-1 b')).toBe('a [redacted] b');
  });
});
