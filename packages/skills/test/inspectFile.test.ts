import { createHash } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectFile } from '../src/files/inspectFile.js';
import { SkillsError } from '../src/skillsError.js';
import { makeFifo, tempDir } from './helpers/fixtures.js';

const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('inspectFile', () => {
  it.each([
    ['an empty file', Buffer.alloc(0)],
    ['a small file', Buffer.from('hello\n')],
    ['a file one byte over the sniffed head', Buffer.alloc(8193, 'a')],
    ['a file of several read chunks', Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256))],
  ])('hashes %s exactly as sha256 of its bytes, with its size', async (_label, bytes) => {
    const file = join(await tempDir(), 'f');
    await writeFile(file, bytes);
    const facts = await inspectFile(file, { digest: true });
    expect(facts.digest).toBe(sha256(bytes));
    expect(facts.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(facts.size).toBe(bytes.length);
  });

  it('reads only the head without a digest, and reports the executable bit', async () => {
    const file = join(await tempDir(), 'run.sh');
    await writeFile(file, 'echo hi\n');
    await chmod(file, 0o755);
    const facts = await inspectFile(file, { digest: false });
    expect(facts).toEqual({ size: 8, isBinary: false, isExecutable: true });
  });

  it('refuses a FIFO without waiting for a writer', async () => {
    const fifo = join(await tempDir(), 'pipe');
    makeFifo(fifo);
    const error = await inspectFile(fifo, { digest: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillsError);
    expect((error as SkillsError).code).toBe('FILE_NOT_REGULAR');
  });
});
