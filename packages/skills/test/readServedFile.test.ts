import { statSync } from 'node:fs';
import { appendFile, readFile, realpath, rename, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { confirmFilePlace } from '../src/files/confirmFilePlace.js';
import { readServedFile } from '../src/files/readServedFile.js';
import { createServedFileCache } from '../src/files/servedFileCache.js';
import { sha256Digest } from '../src/files/sha256Digest.js';
import type { SkillFile } from '../src/load/loadTypes.js';
import { scanSkillFiles } from '../src/load/scanSkillFiles.js';
import { SkillsError } from '../src/skillsError.js';
import { tempDir, writeTree } from './helpers/fixtures.js';

const codeOf = async (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof SkillsError ? error.code : String(error)),
  );

/** A skill folder scanned as the catalog would, and the scanned file at `path`. */
async function scanned(
  files: Record<string, string>,
  path: string,
): Promise<{ dir: string; file: SkillFile }> {
  const dir = await tempDir();
  await writeTree(dir, files);
  const { files: found } = await scanSkillFiles(dir, 'probe');
  const file = found.find((f) => f.path === path);
  if (file === undefined) throw new Error(`${path} was not scanned`);
  return { dir, file };
}

describe('readServedFile', () => {
  it('serves the catalog bytes whole, and a long text head only after hashing the rest', async () => {
    const long = 'a line of text\n'.repeat(1000);
    const { file } = await scanned({ 'a.md': 'hello\n', 'long.md': long }, 'long.md');
    const read = await readServedFile(file, { maxBytes: 100 });
    expect(read).toMatchObject({ size: long.length, truncated: true });
    expect(read.bytes.toString()).toBe(long.slice(0, 100));
    const whole = await readServedFile(file, { maxBytes: long.length });
    expect(whole.bytes.toString()).toBe(long);
  });

  it('a parent folder swapped for a symlink to a folder outside: FILE_CHANGED, whatever lies there', async () => {
    const outside = await tempDir();
    const { dir, file } = await scanned(
      { 'references/notes/guide.md': 'the guide\n' },
      'references/notes/guide.md',
    );
    // The same bytes outside: only the place gives it away (the digest would not).
    await writeFile(join(outside, 'guide.md'), 'the guide\n');
    await rename(join(dir, 'references/notes'), join(dir, 'references/notes.orig'));
    await symlink(outside, join(dir, 'references/notes'));
    expect(await codeOf(readServedFile(file, { maxBytes: 100 }))).toBe('FILE_CHANGED');
    expect(await codeOf(confirmFilePlace(file))).toBe('FILE_CHANGED');
  });

  it('records real paths at scan, so a skill reached through a symlinked folder opens beneath its real path', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'real/a.md': 'a\n' });
    await symlink(join(dir, 'real'), join(dir, 'link'));
    const { realDir, files } = await scanSkillFiles(join(dir, 'link'), 'probe');
    expect(realDir).toBe(await realpath(join(dir, 'real')));
    expect(files[0]?.absolutePath).toBe(join(realDir, 'a.md'));
    expect((await readServedFile(files[0] as SkillFile, { maxBytes: 10 })).bytes.toString()).toBe('a\n');
  });

  it('other bytes of the same size, a grown and a shrunk file: FILE_CHANGED', async () => {
    const { dir, file } = await scanned({ 'a.md': 'hello\n' }, 'a.md');
    const path = join(dir, 'a.md');
    await writeFile(path, 'HELLO\n');
    expect(await codeOf(readServedFile(file, { maxBytes: 100 }))).toBe('FILE_CHANGED');
    await writeFile(path, 'hello\n');
    await appendFile(path, 'more');
    expect(await codeOf(readServedFile(file, { maxBytes: 100 }))).toBe('FILE_CHANGED');
    await truncate(path, 2);
    expect(await codeOf(readServedFile(file, { maxBytes: 100 }))).toBe('FILE_CHANGED');
    await writeFile(path, 'hello\n');
    expect((await readServedFile(file, { maxBytes: 100 })).bytes.toString()).toBe('hello\n');
  });

  it('a file that shrinks during a read is FILE_CHANGED (a sysfs file: its size says 4096, it reads shorter)', async () => {
    // sysfs reports every attribute as a 4096-byte regular file and reads it shorter: to the reader, exactly
    // a file that shrank between the open and the read, with no race to win.
    const path = '/sys/kernel/mm/transparent_hugepage/enabled';
    const size = statSync(path).size;
    const content = await readFile(path);
    expect(content.length).toBeLessThan(size);
    const file: SkillFile = {
      path: 'enabled',
      absolutePath: path,
      size,
      isScript: false,
      isExecutable: false,
      mimeType: 'text/plain',
      isBinary: false,
      digest: sha256Digest(content),
    };
    const error = await readServedFile(file, { maxBytes: size }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SkillsError);
    expect((error as SkillsError).code).toBe('FILE_CHANGED');
    expect((error as SkillsError).message).toContain('shrank while it was read');
  });
});

describe('readServedFile with the catalog cache (files/servedFileCache.ts)', () => {
  const cacheOf = (maxBytes = 1024) => createServedFileCache({ maxBytes, maxFileBytes: 256 });

  it('a second read of an unchanged file is served from the cache: the very bytes the first read kept', async () => {
    const { file } = await scanned({ 'a.md': 'hello\n' }, 'a.md');
    const cache = cacheOf();
    const first = await readServedFile(file, { maxBytes: 100, cache });
    const second = await readServedFile(file, { maxBytes: 100, cache });
    expect(second.bytes.toString()).toBe('hello\n');
    expect(second).toMatchObject({ size: 6, truncated: false });
    expect(second.bytes).toBe(first.bytes);
  });

  it('hits that arrive together share one check of the file: all get the kept bytes, and a later change is still seen', async () => {
    const { dir, file } = await scanned({ 'a.md': 'hello\n' }, 'a.md');
    const cache = cacheOf();
    const first = await readServedFile(file, { maxBytes: 100, cache });
    const together = await Promise.all(
      Array.from({ length: 20 }, () => readServedFile(file, { maxBytes: 100, cache })),
    );
    for (const read of together) expect(read.bytes).toBe(first.bytes);
    // The shared check is over once it settled: the next hit checks again and sees the rewrite.
    await writeFile(join(dir, 'a.md'), 'HELLO\n');
    expect(await codeOf(readServedFile(file, { maxBytes: 100, cache }))).toBe('FILE_CHANGED');
  });

  it('a file rewritten in place with other bytes of the same size: FILE_CHANGED, never the kept copy', async () => {
    const { dir, file } = await scanned({ 'a.md': 'hello\n' }, 'a.md');
    const cache = cacheOf();
    await readServedFile(file, { maxBytes: 100, cache });
    await writeFile(join(dir, 'a.md'), 'HELLO\n');
    expect(await codeOf(readServedFile(file, { maxBytes: 100, cache }))).toBe('FILE_CHANGED');
  });

  it('a parent folder swapped for a symlink after a cached read: FILE_CHANGED, as without a cache', async () => {
    const outside = await tempDir();
    const { dir, file } = await scanned({ 'references/guide.md': 'the guide\n' }, 'references/guide.md');
    const cache = cacheOf();
    await readServedFile(file, { maxBytes: 100, cache });
    await writeFile(join(outside, 'guide.md'), 'the guide\n');
    await rename(join(dir, 'references'), join(dir, 'references.orig'));
    await symlink(outside, join(dir, 'references'));
    expect(await codeOf(readServedFile(file, { maxBytes: 100, cache }))).toBe('FILE_CHANGED');
  });

  it('keeps at most its byte bound (least recently served out first) and no file over its file bound', async () => {
    const { dir } = await scanned(
      { 'a.md': 'aaaaaaaaaa', 'b.md': 'bbbbbbbbbb', 'big.md': 'x'.repeat(300) },
      'a.md',
    );
    const { files } = await scanSkillFiles(dir, 'probe');
    const [a, b, big] = ['a.md', 'b.md', 'big.md'].map((path) => files.find((f) => f.path === path));
    if (a === undefined || b === undefined || big === undefined) throw new Error('not scanned');
    const cache = cacheOf(15);
    const firstA = await readServedFile(a, { maxBytes: 1000, cache });
    await readServedFile(b, { maxBytes: 1000, cache });
    // b took the room: a is read from disk again.
    expect((await readServedFile(a, { maxBytes: 1000, cache })).bytes).not.toBe(firstA.bytes);
    const firstBig = await readServedFile(big, { maxBytes: 1000, cache });
    expect((await readServedFile(big, { maxBytes: 1000, cache })).bytes).not.toBe(firstBig.bytes);
  });
});
