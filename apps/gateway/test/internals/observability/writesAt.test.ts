import { describe, expect, it } from 'vitest';
import { writesAt } from '../../../src/observability/writesAt.js';

describe('writesAt (observability/writesAt.ts)', () => {
  it('says whether a logger at a level writes info and debug lines', () => {
    const at = (level: string) => [writesAt({ level }, 'debug'), writesAt({ level }, 'info')];
    expect(at('trace')).toEqual([true, true]);
    expect(at('debug')).toEqual([true, true]);
    expect(at('info')).toEqual([false, true]);
    expect(at('warn')).toEqual([false, false]);
    expect(at('error')).toEqual([false, false]);
    expect(at('silent')).toEqual([false, false]);
  });
});
