import { constants, type Stats } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { SkillsError } from '../skillsError.js';
import { boundedFileOp, type FileOpOptions } from './boundedFileOp.js';

// O_NONBLOCK: opening a FIFO or a device never waits for the other end. O_NOFOLLOW: a served file swapped
// for a symlink after scanning is refused instead of followed out of its skill. (Both are 0 on Windows.)
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

/** A regular file opened for reading, with the stats of the opened handle. */
export interface OpenedFile {
  readonly handle: FileHandle;
  /** fstat of `handle`: what was opened, not what the path pointed at a moment earlier. */
  readonly stats: Stats;
}

/** Closes without waiting: a handle with a stuck operation only closes once that operation ends. */
export function closeQuietly(handle: FileHandle): void {
  handle.close().catch(() => {});
}

function fileError(path: string, error: unknown): SkillsError {
  if (error instanceof SkillsError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ELOOP') {
    return new SkillsError('FILE_NOT_REGULAR', `${path} is a symbolic link`, { cause: error });
  }
  return new SkillsError('FILE_UNREADABLE', `${path} cannot be read (${code ?? String(error)})`, {
    cause: error,
  });
}

/**
 * Opens `path` for reading, non-blocking and without following a final symlink, and refuses anything but a
 * regular file, checked on the opened handle (no check-then-open race). Every step is time-bounded.
 * Throws SkillsError FILE_NOT_REGULAR, FILE_UNREADABLE, FILE_TIMEOUT or FILE_BUSY.
 */
export async function openRegularFile(path: string, options: FileOpOptions = {}): Promise<OpenedFile> {
  let handle: FileHandle;
  try {
    handle = await boundedFileOp(path, () => open(path, FLAGS), { ...options, release: closeQuietly });
  } catch (error) {
    throw fileError(path, error);
  }
  try {
    const stats = await boundedFileOp(path, () => handle.stat(), options);
    if (!stats.isFile()) throw new SkillsError('FILE_NOT_REGULAR', `${path} is not a regular file`);
    return { handle, stats };
  } catch (error) {
    closeQuietly(handle);
    throw fileError(path, error);
  }
}

/** Closes `handle` under the deadline; a close that fails or times out is left to finish on its own. */
export async function closeBounded(
  path: string,
  handle: FileHandle,
  options: FileOpOptions = {},
): Promise<void> {
  await boundedFileOp(path, () => handle.close(), options).catch(() => {});
}

/** Reads into `buffer` from `position` until it is full or the file ends; each read is time-bounded. */
export async function readFully(
  path: string,
  handle: FileHandle,
  buffer: Buffer,
  position: number,
  options: FileOpOptions = {},
): Promise<number> {
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await boundedFileOp(
      path,
      () => handle.read(buffer, filled, buffer.length - filled, position + filled),
      options,
    ).catch((error: unknown) => {
      throw fileError(path, error);
    });
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}
