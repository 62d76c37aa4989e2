import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectFile } from '../src/files/inspectFile.js';
import { SNIFF_BYTES } from '../src/files/looksBinary.js';
import { tempDir } from './helpers/fixtures.js';

async function sniff(content: Uint8Array | string): Promise<boolean> {
  const file = join(await tempDir(), 'file');
  await writeFile(file, content);
  return (await inspectFile(file, { digest: false })).isBinary;
}

const EURO = Buffer.from('€'); // 3 bytes in UTF-8

describe('binary sniffing (inspectFile)', () => {
  it.each([
    ['an empty file', ''],
    ['ASCII text', 'hello\nworld\n'],
    ['UTF-8 text', 'Grüße, 数据, 🚀\n'],
    ['a UTF-8 BOM', '\uFEFFtext'],
  ])('treats %s as text', async (_label, content) => {
    expect(await sniff(content)).toBe(false);
  });

  it.each([
    ['a NUL byte', Buffer.from('text\0more')],
    ['Latin-1 bytes', Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])],
    ['a PNG header', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['UTF-16 text', Buffer.from('\uFEFFhi', 'utf16le')],
  ])('treats %s as binary', async (_label, content) => {
    expect(await sniff(content)).toBe(true);
  });

  it('tolerates a multi-byte character cut at the sniff boundary', async () => {
    const head = Buffer.alloc(SNIFF_BYTES - 1, 'a');
    expect(await sniff(Buffer.concat([head, EURO, Buffer.from('tail')]))).toBe(false);
  });

  it('does not tolerate a multi-byte character cut at the end of the file', async () => {
    expect(await sniff(Buffer.concat([Buffer.from('abc'), EURO.subarray(0, 2)]))).toBe(true);
  });

  it('only looks at the head: a NUL byte after it goes unnoticed', async () => {
    expect(await sniff(Buffer.concat([Buffer.alloc(SNIFF_BYTES, 'a'), Buffer.from([0])]))).toBe(false);
  });
});
