import { mkdir, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SourcesError } from '../sourcesError.js';

const STICKY = 0o1000;

/** Why a folder lets another local user change what is inside it, or undefined when it does not. */
function openTo(
  path: string,
  info: { uid: number; mode: number },
  uid: number,
  isCache: boolean,
): string | undefined {
  if (isCache) {
    if (info.uid !== uid) return `${path} is owned by uid ${info.uid}, not the gateway's uid ${uid}`;
    if ((info.mode & 0o022) !== 0)
      return `${path} is writable by group or others (mode ${(info.mode & 0o7777).toString(8)})`;
    return undefined;
  }
  // A folder above it that anyone may write without the sticky bit lets anyone move the cache away and put
  // another in its place. (Its owner is trusted like the config's: it could edit the config and the lock.)
  if ((info.mode & 0o002) !== 0 && (info.mode & STICKY) === 0) {
    return `${path} (above the cache) is writable by others without the sticky bit`;
  }
  return undefined;
}

/**
 * Creates the cache folder (0700) when missing and refuses one another local user could write: it, its
 * `git`, `archive` and `tmp` folders must belong to the gateway's user and be writable by nobody else, and no
 * folder above it may let anyone replace it. Anything such a user wrote would be served after its
 * verification (the skills are read again when the catalog loads, and on every run).
 */
export async function assertPrivateCache(dir: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const real = await realpath(dir);
  const refuse = (reason: string): never => {
    throw new SourcesError('CACHE_UNSAFE', `the source cache is not private: ${reason} (sources.cache_dir)`);
  };
  for (const name of ['', 'git', 'archive', 'tmp']) {
    const path = join(real, name);
    const info = await stat(path).catch(() => undefined);
    if (info === undefined) continue;
    const reason = openTo(path, info, uid, true);
    if (reason !== undefined) refuse(reason);
  }
  for (let above = dirname(real); ; above = dirname(above)) {
    const reason = openTo(above, await stat(above), uid, false);
    if (reason !== undefined) refuse(reason);
    if (dirname(above) === above) break;
  }
}
