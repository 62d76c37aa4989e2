import { describe, expect, it } from 'vitest';
import { sanitizeName } from '../src/index.js';

const NAME_PART = /^[a-z0-9_-]+$/;

describe('sanitizeName', () => {
  it.each([
    ['pdf', 'pdf'],
    ['text-stats', 'text-stats'],
    ['PDF-Tools', 'pdf-tools'],
    ['pdf.tools', 'pdf_tools'],
    ['my skill  name', 'my_skill_name'],
    ['a...b', 'a_b'],
    ['a__b', 'a_b'],
    ['a--b', 'a--b'],
    ['__a__', 'a'],
    ['-a-', 'a'],
    ['_-_a', 'a'],
    ['café', 'caf'],
    ['naïve skill', 'na_ve_skill'],
    ['données-2024', 'donn_es-2024'],
    ['x/y\\z', 'x_y_z'],
    ['tab\there', 'tab_here'],
    ['emoji🚀rocket', 'emoji_rocket'],
  ])('sanitizes %j to %j', (raw, expected) => {
    expect(sanitizeName(raw)).toBe(expected);
  });

  it('keeps long names whole: shortening is the catalog’s job', () => {
    const long = 'a'.repeat(100);
    expect(sanitizeName(long)).toBe(long);
  });

  it.each(['数据', '🚀', '...', '___', '', '-'])(
    'turns %j, which has nothing usable, into a stable short hash',
    (raw) => {
      const result = sanitizeName(raw);
      expect(result).toMatch(/^[0-9a-f]{6}$/);
      expect(sanitizeName(raw)).toBe(result);
    },
  );

  it('gives different unusable names different hashes', () => {
    expect(sanitizeName('数据')).not.toBe(sanitizeName('文件'));
  });

  it('always returns a non-empty tool-name part', () => {
    for (const raw of ['A', ' ', 'Ω', 'a b', '--', '🙂x🙂']) expect(sanitizeName(raw)).toMatch(NAME_PART);
  });
});
