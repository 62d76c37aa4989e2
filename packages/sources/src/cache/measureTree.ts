import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SourcesError } from '../sourcesError.js';
import type { SourceLimits } from '../sourceTypes.js';

/** Bytes and entries of a materialised tree; refuses one over the caps, naming the source. */
export async function measureTree(
  dir: string,
  limits: SourceLimits,
  source: string,
): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const pending = [dir];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const entry of await readdir(next, { withFileTypes: true })) {
      const path = join(next, entry.name);
      files += 1;
      if (entry.isDirectory()) pending.push(path);
      else bytes += (await lstat(path)).size;
    }
    if (bytes > limits.maxBytes) {
      throw new SourcesError('TOO_LARGE', `over the ${limits.maxBytes}-byte cap (sources.max_bytes)`, {
        source,
      });
    }
    if (files > limits.maxFiles) {
      throw new SourcesError('TOO_LARGE', `over the ${limits.maxFiles}-file cap (sources.max_files)`, {
        source,
      });
    }
  }
  return { bytes, files };
}
