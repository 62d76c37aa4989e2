import { createHash } from 'node:crypto';
import { SkillsError } from '../skillsError.js';
import type { FileOpOptions } from './boundedFileOp.js';
import { looksBinary, SNIFF_BYTES } from './looksBinary.js';
import { closeBounded, closeQuietly, openRegularFile, readFully } from './openRegularFile.js';
import { formatDigest } from './sha256Digest.js';

// Large enough that a typical skill file is one read, small enough that hashing a huge file holds little.
const CHUNK_BYTES = 64 * 1024;

/** Options of inspectFile. */
export interface InspectFileOptions extends FileOpOptions {
  /** When true, the whole file is read and hashed; otherwise only its head is read. */
  readonly digest: boolean;
  /** A larger file is refused with FILE_TOO_LARGE before a byte of it is read (default: no cap). */
  readonly maxBytes?: number;
}

/** What scanning learns about one served file, from one open handle. */
export interface FileFacts {
  /** Bytes covered by `digest` (the size when opened, or less if the file shrank meanwhile). */
  readonly size: number;
  /** `sha256:<hex>` of the raw bytes, when asked for. */
  readonly digest?: string;
  readonly isBinary: boolean;
  readonly isExecutable: boolean;
}

/**
 * Opens a regular file once (see openRegularFile) and streams it: sniffs its head for binary content and,
 * when asked, hashes it in bounded chunks, so that even a huge file costs one chunk of memory. Bytes
 * appended after the open are not read: the digest covers the size the handle reported.
 */
export async function inspectFile(path: string, options: InspectFileOptions): Promise<FileFacts> {
  const { handle, stats } = await openRegularFile(path, options);
  if (options.maxBytes !== undefined && stats.size > options.maxBytes) {
    closeQuietly(handle);
    throw new SkillsError('FILE_TOO_LARGE', `${stats.size} bytes, over the ${options.maxBytes}-byte limit`);
  }
  const hash = options.digest ? createHash('sha256') : undefined;
  let position: number;
  let isBinary: boolean;
  try {
    // The first read covers the sniffed head plus one byte (which tells whether the file goes on) and, when
    // hashing, a whole chunk: sized by fstat, so that a file up to a chunk long takes exactly one read.
    const first = Buffer.allocUnsafe(
      Math.min(hash === undefined ? SNIFF_BYTES + 1 : CHUNK_BYTES, stats.size),
    );
    position = await readFully(path, handle, first, 0, options);
    isBinary = looksBinary(first.subarray(0, Math.min(position, SNIFF_BYTES)), position > SNIFF_BYTES);
    hash?.update(first.subarray(0, position));
    if (hash !== undefined && position === first.length && position < stats.size) {
      const chunk = first;
      while (position < stats.size) {
        const want = chunk.subarray(0, Math.min(chunk.length, stats.size - position));
        const filled = await readFully(path, handle, want, position, options);
        hash.update(want.subarray(0, filled));
        position += filled;
        if (filled < want.length) break;
      }
    }
  } catch (error) {
    // After a stuck read, close() would wait for it: the handle closes whenever that read ends.
    closeQuietly(handle);
    throw error;
  }
  await closeBounded(path, handle, options);
  return {
    size: hash === undefined ? stats.size : position,
    ...(hash === undefined ? {} : { digest: formatDigest(hash) }),
    isBinary,
    isExecutable: (stats.mode & 0o111) !== 0,
  };
}
