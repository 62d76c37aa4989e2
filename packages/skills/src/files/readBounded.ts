import type { FileOpOptions } from './boundedFileOp.js';
import { closeBounded, closeQuietly, openRegularFile, readFully } from './openRegularFile.js';

/** Options of readBounded. */
export interface ReadBoundedOptions extends FileOpOptions {
  /** Most bytes returned (and held in memory), whatever the size of the file. */
  readonly maxBytes: number;
}

/** The head of a regular file, at most `maxBytes` long. */
export interface BoundedRead {
  readonly bytes: Buffer;
  /** Size of the file when opened (fstat of the handle). */
  readonly size: number;
  /** True when the file holds more than `bytes`. */
  readonly truncated: boolean;
}

/**
 * Reads at most `maxBytes` of a regular file from one open handle (docs/decisions.md, "Bounded file
 * access"): a file that grew huge, a FIFO or a device costs at most the cap, never the whole file.
 * Throws SkillsError FILE_NOT_REGULAR, FILE_UNREADABLE, FILE_TIMEOUT or FILE_BUSY.
 */
export async function readBounded(path: string, options: ReadBoundedOptions): Promise<BoundedRead> {
  const { handle, stats } = await openRegularFile(path, options);
  let filled: number;
  // A file over the cap gets one byte more than is kept: proof that it goes on. A file within it is read
  // to the size fstat reported, in one read.
  const buffer = Buffer.allocUnsafe(Math.min(options.maxBytes + 1, stats.size));
  try {
    filled = await readFully(path, handle, buffer, 0, options);
  } catch (error) {
    // After a stuck read, close() would wait for it: the handle closes whenever that read ends.
    closeQuietly(handle);
    throw error;
  }
  await closeBounded(path, handle, options);
  const kept = Math.min(filled, options.maxBytes);
  return {
    bytes: buffer.subarray(0, kept),
    size: Math.max(stats.size, filled),
    truncated: filled > kept || stats.size > kept,
  };
}
