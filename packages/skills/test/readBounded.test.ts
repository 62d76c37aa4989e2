import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBounded } from '../src/files/readBounded.js';
import { SkillsError } from '../src/skillsError.js';
import { makeFifo, sparseFile, tempDir } from './helpers/fixtures.js';

const codeOf = async (promise: Promise<unknown>): Promise<string | undefined> =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof SkillsError ? error.code : String(error)),
  );

describe('readBounded', () => {
  it('reads a file within the cap whole', async () => {
    const file = join(await tempDir(), 'a.txt');
    await writeFile(file, 'hello\n');
    const read = await readBounded(file, { maxBytes: 100 });
    expect(read.bytes.toString()).toBe('hello\n');
    expect(read).toMatchObject({ size: 6, truncated: false });
  });

  it('reads an empty file and a file exactly at the cap without calling it truncated', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'empty'), '');
    await writeFile(join(dir, 'exact'), 'x'.repeat(10));
    expect(await readBounded(join(dir, 'empty'), { maxBytes: 10 })).toMatchObject({
      size: 0,
      truncated: false,
    });
    const exact = await readBounded(join(dir, 'exact'), { maxBytes: 10 });
    expect(exact).toMatchObject({ size: 10, truncated: false });
    expect(exact.bytes).toHaveLength(10);
  });

  it('a file grown huge (1 GiB, sparse) costs the cap, not its size', async () => {
    const file = join(await tempDir(), 'grown.txt');
    await sparseFile(file, 2 ** 30);
    const before = process.memoryUsage().rss;
    const reads = await Promise.all(
      Array.from({ length: 6 }, () => readBounded(file, { maxBytes: 64 * 1024 })),
    );
    for (const read of reads) {
      expect(read.bytes.length).toBe(64 * 1024);
      expect(read).toMatchObject({ size: 2 ** 30, truncated: true });
    }
    // Six whole reads would be 6 GiB; six capped ones are 384 KiB.
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 2 ** 20);
  });

  it('a FIFO is refused at once (no writer needed), six at a time, while a regular file reads', async () => {
    const dir = await tempDir();
    const fifos = Array.from({ length: 6 }, (_, i) => join(dir, `pipe${i}`));
    for (const fifo of fifos) makeFifo(fifo);
    await writeFile(join(dir, 'ok.txt'), 'ok');
    const started = Date.now();
    const [codes, ok] = await Promise.all([
      Promise.all(fifos.map((fifo) => codeOf(readBounded(fifo, { maxBytes: 100 })))),
      readBounded(join(dir, 'ok.txt'), { maxBytes: 100 }),
    ]);
    expect(codes).toEqual(fifos.map(() => 'FILE_NOT_REGULAR'));
    expect(ok.bytes.toString()).toBe('ok');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a directory, a device, a final symlink and a missing file with a code', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'real.txt'), 'r');
    await symlink(join(dir, 'real.txt'), join(dir, 'link.txt'));
    expect(await codeOf(readBounded(join(dir, 'sub'), { maxBytes: 10 }))).toBe('FILE_NOT_REGULAR');
    expect(await codeOf(readBounded('/dev/zero', { maxBytes: 10 }))).toBe('FILE_NOT_REGULAR');
    expect(await codeOf(readBounded(join(dir, 'link.txt'), { maxBytes: 10 }))).toBe('FILE_NOT_REGULAR');
    expect(await codeOf(readBounded(join(dir, 'missing'), { maxBytes: 10 }))).toBe('FILE_UNREADABLE');
  });
});
