import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { SkillFile } from '../load/loadTypes.js';
import { boundedFileOp, type FileOpOptions } from './boundedFileOp.js';

/**
 * Bytes of served files a catalog keeps (docs/decisions.md, "Served-file cache"): reading a small skill file
 * for a client costs six file operations (open, fstat, the descriptor's real path, reads, close) on libuv's
 * threads; a kept copy costs one stat. What is kept was read by readServedFile and matched the catalog's size
 * and digest, so it is the catalog's published bytes; it is served only while a stat of the path shows the
 * very same file unchanged (device, inode, size, mtime, ctime), otherwise the full read runs again and
 * answers FILE_CHANGED exactly as without a cache.
 */
export interface ServedFileCache {
  /** The kept bytes of `file` if the file on disk is unchanged since they were read; else undefined. */
  get(file: SkillFile, options?: FileOpOptions): Promise<Buffer | undefined>;
  /** Keeps the verified whole bytes of `file`, with the fstat of the handle they were read from. */
  put(file: SkillFile, bytes: Buffer, stats: Stats): void;
}

/** Bounds of a served-file cache. */
export interface ServedFileCacheOptions {
  /** Most bytes kept in all (least recently served go first). */
  readonly maxBytes: number;
  /** Largest file kept; larger ones are read from disk every time. */
  readonly maxFileBytes: number;
}

/** The default bounds: 32 MiB per catalog, files up to 256 KiB (skill references and scripts are small). */
const SERVED_FILE_CACHE_DEFAULTS: ServedFileCacheOptions = {
  maxBytes: 32 * 1024 * 1024,
  maxFileBytes: 256 * 1024,
};

interface Kept {
  readonly bytes: Buffer;
  readonly dev: number;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** The stat under way for this entry, if any: whether the file on disk is still the kept one. */
  check?: Promise<boolean>;
}

const sameFile = (kept: Kept, now: Stats, size: number): boolean =>
  now.isFile() &&
  now.size === size &&
  now.dev === kept.dev &&
  now.ino === kept.ino &&
  now.mtimeMs === kept.mtimeMs &&
  now.ctimeMs === kept.ctimeMs;

/** Creates an empty cache (one per catalog: it dies with the catalog whose bytes it holds). */
export function createServedFileCache(
  options: ServedFileCacheOptions = SERVED_FILE_CACHE_DEFAULTS,
): ServedFileCache {
  // Map order is the recency order: a hit moves its entry to the end, eviction takes from the front.
  const kept = new Map<SkillFile, Kept>();
  let bytes = 0;
  const drop = (file: SkillFile, entry: Kept) => {
    kept.delete(file);
    bytes -= entry.bytes.length;
  };
  return {
    async get(file, fileOptions = {}) {
      const entry = kept.get(file);
      if (entry === undefined) return undefined;
      // A hit that arrives while a stat of the file is under way shares that stat instead of starting its own:
      // under load most hits share one, and no verdict is older than the stat that was running on arrival.
      let check = entry.check;
      if (check === undefined) {
        check = boundedFileOp(file.absolutePath, () => stat(file.absolutePath), fileOptions).then(
          (now) => sameFile(entry, now, file.size),
          // Gone, unreadable or stuck: the full read says which, with its own error.
          () => false,
        );
        entry.check = check;
        void check.then(() => {
          entry.check = undefined;
        });
      }
      if (!(await check)) {
        if (kept.get(file) === entry) drop(file, entry);
        return undefined;
      }
      if (kept.get(file) !== entry) return undefined;
      kept.delete(file);
      kept.set(file, entry);
      return entry.bytes;
    },
    put(file, fileBytes, stats) {
      if (fileBytes.length !== file.size || file.size > options.maxFileBytes) return;
      const previous = kept.get(file);
      if (previous !== undefined) drop(file, previous);
      for (const [oldest, entry] of kept) {
        if (bytes + fileBytes.length <= options.maxBytes) break;
        drop(oldest, entry);
      }
      if (bytes + fileBytes.length > options.maxBytes) return;
      const { dev, ino, mtimeMs, ctimeMs } = stats;
      kept.set(file, { bytes: fileBytes, dev, ino, mtimeMs, ctimeMs });
      bytes += fileBytes.length;
    },
  };
}
