import { describe, expect, it } from 'vitest';
import { mimeTypeOf } from '../src/files/mimeType.js';

describe('mimeTypeOf', () => {
  it.each([
    ['README.md', false, 'text/markdown'],
    ['scripts/build.SH', false, 'application/x-sh'],
    ['data/table.csv', false, 'text/csv'],
    ['config.yml', false, 'application/yaml'],
    ['assets/photo.JPG', true, 'image/jpeg'],
    ['assets/icon.svg', false, 'image/svg+xml'],
    ['archive.tar.gz', true, 'application/gzip'],
    ['Makefile', false, 'text/plain'],
    ['blob', true, 'application/octet-stream'],
    ['notes.unknown', false, 'text/plain'],
    ['dump.unknown', true, 'application/octet-stream'],
    ['x.constructor', false, 'text/plain'],
    ['dir.md/file', false, 'text/plain'],
  ])('%s (binary: %s) is %s', (path, isBinary, expected) => {
    expect(mimeTypeOf(path, isBinary)).toBe(expected);
  });
});
