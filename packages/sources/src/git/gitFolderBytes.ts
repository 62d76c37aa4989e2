import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes a git repository folder holds while git writes it. */
export interface GitFolderBytes {
  /** Under `.git`: packs (tmp_pack_* while they arrive), pack indexes, the index, refs. */
  readonly git: number;
  /** Everything else: the checkout. */
  readonly checkout: number;
  /** The largest single file. */
  readonly largest: number;
}

const size = (path: string): Promise<number> =>
  lstat(path).then(
    (s) => (s.isFile() ? s.size : 0),
    () => 0,
  );

/**
 * Sums the regular files under a repository folder that git is writing. Files and folders come and go while it
 * runs (temporary packs are renamed, lock files removed): one that vanished counts as 0.
 */
export async function gitFolderBytes(dir: string): Promise<GitFolderBytes> {
  let git = 0;
  let checkout = 0;
  let largest = 0;
  const pending: Array<{ path: string; inGit: boolean }> = [{ path: dir, inGit: false }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const entries = await readdir(next.path, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(next.path, entry.name);
      const inGit = next.inGit || (next.path === dir && entry.name === '.git');
      if (entry.isDirectory()) {
        pending.push({ path, inGit });
        continue;
      }
      const bytes = await size(path);
      if (inGit) git += bytes;
      else checkout += bytes;
      largest = Math.max(largest, bytes);
    }
  }
  return { git, checkout, largest };
}
