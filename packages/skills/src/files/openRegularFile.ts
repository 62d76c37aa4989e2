import { constants, existsSync, type Stats } from 'node:fs';
import { type FileHandle, open, readlink } from 'node:fs/promises';
import { SkillsError } from '../skillsError.js';
import { boundedFileOp, type FileOpOptions } from './boundedFileOp.js';

// O_NONBLOCK: opening a FIFO or a device never waits for the other end. O_NOFOLLOW: a served file swapped
// for a symlink after scanning is refused instead of followed out of its skill. (Both are 0 on Windows.)
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

// The kernel's name of each open descriptor (Linux). O_NOFOLLOW guards only the last component of a path:
// a folder on the way swapped for a symlink is followed. Node cannot call openat2(RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS), so the opened descriptor's real path is compared with the path asked for instead.
const FD_DIR = '/proc/self/fd';
let namesDescriptors: boolean | undefined;

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
 * Where the opened `handle` really is, from the kernel (`/proc/self/fd/N`), or undefined on a host without
 * /proc: then the callers' size and digest checks are what keeps other bytes out (docs/decisions.md,
 * "Skill files open beneath their skill").
 */
async function placeOf(
  path: string,
  handle: FileHandle,
  options: FileOpOptions,
): Promise<string | undefined> {
  namesDescriptors ??= existsSync(FD_DIR);
  if (!namesDescriptors) return undefined;
  return boundedFileOp(path, () => readlink(`${FD_DIR}/${handle.fd}`), options);
}

/**
 * Opens `path` for reading, non-blocking and without following a final symlink, and refuses anything but a
 * regular file lying exactly at `path`, checked on the opened handle (no check-then-open race): `path` must
 * be a real path (every symlink resolved, as the catalog records it), and the kernel's name of the opened
 * descriptor must equal it, so a folder on the way swapped for a symlink, or the file moved, is refused
 * with FILE_CHANGED instead of read from wherever it now leads. Every step is time-bounded.
 * Throws SkillsError FILE_NOT_REGULAR, FILE_CHANGED, FILE_UNREADABLE, FILE_TIMEOUT or FILE_BUSY.
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
    const place = await placeOf(path, handle, options);
    if (place !== undefined && place !== path) {
      // The place it leads to stays out of the message: it may be outside the skill and reach a client.
      throw new SkillsError(
        'FILE_CHANGED',
        `${path} is no longer where the catalog found it (a folder on its way was moved or replaced by a symlink)`,
      );
    }
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
