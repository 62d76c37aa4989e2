import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { SkillsError } from '../skillsError.js';
import type { SkillFile } from '../types.js';
import { closeBounded, closeQuietly, openRegularFile, readFully } from './openRegularFile.js';
import type { BoundedRead, ReadBoundedOptions } from './readBounded.js';
import type { ServedFileCache } from './servedFileCache.js';
import { formatDigest } from './sha256Digest.js';

// Bytes past the kept head are hashed in chunks of this size, so a long text file costs one chunk of memory.
const CHUNK_BYTES = 64 * 1024;

const changed = (file: SkillFile, what: string): SkillsError =>
  new SkillsError('FILE_CHANGED', `${file.absolutePath} ${what} since the skills catalog was built`);

/**
 * Reads a served skill file for a client: opened exactly where the catalog found it (openRegularFile), and
 * only if its bytes are still the catalog's: the same size, and the same sha256 digest over the whole file
 * (the part past `maxBytes` is hashed, not kept). Anything else, including a file that grows or shrinks
 * while it is read, is FILE_CHANGED, so no client ever gets bytes the catalog did not publish
 * (docs/decisions.md, "Skill files open beneath their skill"). Keeps at most `maxBytes` in memory.
 * Throws SkillsError FILE_CHANGED, FILE_NOT_REGULAR, FILE_UNREADABLE, FILE_TIMEOUT or FILE_BUSY.
 */
export async function readServedFile(
  file: SkillFile,
  options: ReadBoundedOptions & {
    /** The catalog's kept bytes (servedFileCache.ts): a hit costs one stat instead of the full read. */
    readonly cache?: ServedFileCache;
  },
): Promise<BoundedRead> {
  const path = file.absolutePath;
  const cache = file.size <= options.maxBytes ? options.cache : undefined;
  const kept = await cache?.get(file, options);
  // Shared by every reader of the file: callers only read the bytes.
  if (kept !== undefined) return { bytes: kept, size: file.size, truncated: false };
  const { handle, stats } = await openRegularFile(path, options);
  try {
    // Size first: a file grown huge is refused without reading a byte of it.
    if (stats.size !== file.size) throw changed(file, `is ${stats.size} bytes, not ${file.size},`);
    const kept = Math.min(options.maxBytes, file.size);
    const bytes = Buffer.allocUnsafe(kept);
    const hash = createHash('sha256');
    const filled = await readFully(path, handle, bytes, 0, options);
    hash.update(bytes.subarray(0, filled));
    if (filled < kept) throw changed(file, 'shrank while it was read,');
    await hashRest(file, handle, hash, kept, options);
    if (file.digest !== undefined && formatDigest(hash) !== file.digest) {
      throw changed(file, 'has other bytes');
    }
    await closeBounded(path, handle, options);
    cache?.put(file, bytes, stats);
    return { bytes, size: file.size, truncated: kept < file.size };
  } catch (error) {
    // After a stuck read, close() would wait for it: the handle closes whenever that read ends.
    closeQuietly(handle);
    throw error;
  }
}

/** Feeds the file from `position` to its catalog size into `hash`, then makes sure nothing follows. */
async function hashRest(
  file: SkillFile,
  handle: FileHandle,
  hash: ReturnType<typeof createHash>,
  from: number,
  options: ReadBoundedOptions,
): Promise<void> {
  const path = file.absolutePath;
  // One byte past the end, when nothing else is left to hash: proof the file did not grow meanwhile.
  const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, file.size - from + 1)));
  let position = from;
  while (position < file.size) {
    const want = chunk.subarray(0, Math.min(chunk.length, file.size - position));
    const filled = await readFully(path, handle, want, position, options);
    hash.update(want.subarray(0, filled));
    position += filled;
    if (filled < want.length) throw changed(file, 'shrank while it was read,');
  }
  const after = await readFully(path, handle, chunk.subarray(0, 1), position, options);
  if (after > 0) throw changed(file, 'grew while it was read,');
}
