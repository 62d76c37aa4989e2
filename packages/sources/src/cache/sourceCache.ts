import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The content-addressed cache of fetched sources (docs/sources.md, "Cache"). */
export interface SourceCache {
  /** The folder of one pinned content: a git commit (with the source's path) or an archive's sha256. */
  entryDir(pin: CachePin): string;
  /** Whether the entry is there (a complete rename: entries are never written in place). */
  has(pin: CachePin): Promise<boolean>;
  /**
   * Fills a fresh temporary folder with `fill`, then renames it into place; when another process put the
   * same entry there first, theirs stays (it is the same content, and is verified before use like any).
   */
  write(pin: CachePin, fill: (dir: string) => Promise<void>): Promise<void>;
  /** Moves a drifted entry out of the way and deletes it. */
  discard(pin: CachePin): Promise<void>;
}

/** What names a cache entry: `git` by commit and the repository path taken, `archive` by sha256. */
export type CachePin =
  | { readonly kind: 'git'; readonly commit: string; readonly path: string }
  | { readonly kind: 'archive'; readonly sha256: string };

const tempName = (): string => `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;

/** A cache rooted at `dir`: `git/<commit>-<path hash>`, `archive/<sha256>`, and `tmp/` for writes. */
export function createSourceCache(dir: string): SourceCache {
  const entryDir = (pin: CachePin): string =>
    pin.kind === 'git'
      ? join(dir, 'git', `${pin.commit}-${createHash('sha256').update(pin.path).digest('hex').slice(0, 12)}`)
      : join(dir, 'archive', pin.sha256);
  const temp = async (): Promise<string> => {
    const path = join(dir, 'tmp', tempName());
    await mkdir(join(dir, 'tmp'), { recursive: true, mode: 0o700 });
    return path;
  };
  return {
    entryDir,
    async has(pin) {
      return stat(entryDir(pin)).then(
        (s) => s.isDirectory(),
        () => false,
      );
    },
    async write(pin, fill) {
      const work = await temp();
      try {
        await fill(work);
        const target = entryDir(pin);
        await mkdir(join(target, '..'), { recursive: true });
        await rename(work, target).catch(async (error: unknown) => {
          const code = (error as NodeJS.ErrnoException).code;
          if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
        });
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
    async discard(pin) {
      const doomed = await temp();
      await rename(entryDir(pin), doomed).catch(() => {});
      await rm(doomed, { recursive: true, force: true });
    },
  };
}
