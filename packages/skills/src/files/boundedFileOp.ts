import { SkillsError } from '../skillsError.js';

/** Longest one file operation (open, stat, read, readdir...) may take before its caller gets an error. */
const FILE_OP_TIMEOUT_MS = 10_000;

/** Options of the bounded file operations. */
export interface FileOpOptions {
  /** Deadline of each single operation, in milliseconds (default FILE_OP_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

// A path whose operation outlived its deadline still holds one of libuv's few file threads (a blocked
// syscall cannot be cancelled). Until that operation settles, further operations on the path fail at once,
// so one stuck file costs one thread and one error per caller, never the whole pool.
const stuck = new Set<string>();

/**
 * Runs one file operation on `path` under a deadline (docs/decisions.md, "Bounded file access"). On timeout
 * the caller gets FILE_TIMEOUT; `release` then disposes of a value that arrives late (a file handle).
 */
export async function boundedFileOp<T>(
  path: string,
  op: () => Promise<T>,
  options: FileOpOptions & { readonly release?: (value: T) => void } = {},
): Promise<T> {
  if (stuck.has(path)) {
    throw new SkillsError('FILE_BUSY', `${path}: an earlier operation on this file has not finished`);
  }
  const timeoutMs = options.timeoutMs ?? FILE_OP_TIMEOUT_MS;
  const pending = op();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stuck.add(path);
      pending.then(
        (value) => {
          stuck.delete(path);
          options.release?.(value);
        },
        () => stuck.delete(path),
      );
      reject(new SkillsError('FILE_TIMEOUT', `${path}: file operation took longer than ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([pending, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
