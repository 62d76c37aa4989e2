import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { SourcesError } from '../sourcesError.js';
import type { ArchiveSource } from '../sourceTypes.js';

/** Options of downloadArchive. */
export interface DownloadArchiveOptions {
  /** Where the bytes are written. */
  readonly file: string;
  readonly deadline: number;
  readonly maxBytes: number;
}

const describe = (error: unknown): string => {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (cause !== undefined && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
};

/**
 * Downloads an archive to `file` under a byte cap and a deadline, hashing as it goes; refuses it unless its
 * sha256 is the configured one. Nothing is unpacked before this resolves.
 */
export async function downloadArchive(source: ArchiveSource, options: DownloadArchiveOptions): Promise<void> {
  const fail = (code: 'FETCH_FAILED' | 'TIMEOUT' | 'TOO_LARGE', message: string): never => {
    throw new SourcesError(code, message, { source: source.id });
  };
  const signal = AbortSignal.timeout(Math.max(1, options.deadline - Date.now()));
  let response: Response;
  try {
    response = await fetch(source.archive, { signal, redirect: 'follow' });
  } catch (error) {
    return signal.aborted
      ? fail('TIMEOUT', 'the download ran past skills.fetch_timeout_seconds')
      : fail('FETCH_FAILED', `cannot download the archive (${describe(error)})`);
  }
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    return fail('FETCH_FAILED', `the archive URL answered HTTP ${response.status}`);
  }
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    await response.body.cancel();
    return fail(
      'TOO_LARGE',
      `the archive is ${declared} bytes, over the ${options.maxBytes}-byte cap (skills.max_source_bytes)`,
    );
  }
  const hash = createHash('sha256');
  const out = createWriteStream(options.file, { mode: 0o600 });
  let bytes = 0;
  try {
    for await (const chunk of response.body) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) {
        fail('TOO_LARGE', `the archive is over the ${options.maxBytes}-byte cap (skills.max_source_bytes)`);
      }
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  } catch (error) {
    if (error instanceof SourcesError) throw error;
    return signal.aborted
      ? fail('TIMEOUT', 'the download ran past skills.fetch_timeout_seconds')
      : fail('FETCH_FAILED', `the download broke off (${describe(error)})`);
  } finally {
    out.end();
    await finished(out).catch(() => {});
  }
  const actual = hash.digest('hex');
  if (actual !== source.sha256.toLowerCase()) {
    throw new SourcesError(
      'SHA256_MISMATCH',
      `the archive's sha256 is ${actual}, not the configured ${source.sha256}: refused, nothing unpacked`,
      { source: source.id },
    );
  }
}
