import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FileServer, skillMd, startFileServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materializeSources, type SourcesOptions } from '../src/index.js';
import { sha256, tarGz, zip } from './helpers/archives.js';

// Attacks by an archive whose sha256 the operator pinned: the pin proves the bytes, not that they are benign.
const LIMITS = { maxBytes: 100_000, maxFiles: 20 };
const archives: Record<string, Buffer> = {
  // A bomb's first header states 1 GB and 4 KB follow: reading past that header fails (truncated input).
  '/bomb.tar.gz': tarGz([{ path: 'skills/ok/big.bin', body: 'x'.repeat(4096), declaredSize: 1_000_000_000 }]),
  // More entries than the file cap, the stream cut off after them.
  '/many.tar.gz': tarGz(
    Array.from({ length: 200 }, (_, i) => ({ path: `skills/ok/f${i}`, body: `${i}` })),
    { truncateBy: 64 },
  ),
  // A valid small archive with 4 MB of zeros inflated after its end-of-archive blocks.
  '/trailing.tar.gz': tarGz([{ path: 'skills/ok/SKILL.md', body: skillMd('ok') }], {
    trailingZeros: 4_000_000,
  }),
};
let files: FileServer;

beforeAll(async () => {
  archives['/many.zip'] = await zip(
    Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`ok/f${i}`, `${i}`])),
  );
  files = await startFileServer(archives);
});

afterAll(async () => {
  await files.close();
});

async function options(path: string): Promise<SourcesOptions> {
  const work = await mkdtemp(join(tmpdir(), 'skillgate-hostile-archive-'));
  return {
    sources: [{ id: 'bad', archive: files.url(path), sha256: sha256(archives[path] ?? Buffer.alloc(0)) }],
    lockFile: join(work, 'skillgate.lock.yaml'),
    cacheDir: join(work, 'cache'),
    timeoutMs: 30_000,
    limits: LIMITS,
    env: {},
    load: { validation: 'lenient' },
  };
}

describe('compression bombs and floods of entries', () => {
  it.each([
    ['a compression bomb is refused at its first header, before the rest is inflated', '/bomb.tar.gz'],
    ['a flood of entries is refused at the entry past the file cap, before the rest is read', '/many.tar.gz'],
    ['data hidden after the end-of-archive blocks is inflated under the byte cap too', '/trailing.tar.gz'],
    ['a zip of more entries than the file cap is refused while listing, closing the file', '/many.zip'],
  ])('%s', async (_what, path) => {
    const o = await options(path);
    await expect(materializeSources(o)).rejects.toMatchObject({ code: 'TOO_LARGE', source: 'bad' });
    expect(await readdir(join(o.cacheDir, 'archive')).catch(() => [])).toEqual([]);
    expect(await readdir(join(o.cacheDir, 'tmp')).catch(() => [])).toEqual([]);
  });
});
