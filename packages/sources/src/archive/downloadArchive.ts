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

/** Redirects followed at most (fetch's own default is 20; a download host needs one or two). */
const MAX_REDIRECTS = 5;

/** Whether a redirect from `from` may be followed: to the configured host only, and never from https to http. */
function isSameHostRedirect(configured: URL, from: URL, to: URL): boolean {
  if (to.hostname !== configured.hostname) return false;
  if (to.protocol === from.protocol) return to.port === from.port;
  // http -> https on the same host (a host that upgrades every request) is the one change of scheme allowed.
  return from.protocol === 'http:' && to.protocol === 'https:';
}

/**
 * Fetches `url`, following redirects only within its host (docs/sources.md, "Fetching safely"): a redirect to
 * another host, or from https to http, is refused with FETCH_FAILED naming the host it pointed at. Before,
 * any redirect was followed, so an archive host (or whoever controls its answers) could point the gateway at
 * any address its network reaches, internal ones included.
 */
async function fetchWithinHost(url: string, signal: AbortSignal): Promise<Response> {
  const configured = new URL(url);
  let current = configured;
  for (let hop = 0; ; hop++) {
    const response = await fetch(current, { signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    const next = new URL(location, current);
    if (!isSameHostRedirect(configured, current, next))
      throw new SourcesError(
        'FETCH_FAILED',
        `the archive URL redirected to ${next.protocol}//${next.host}, not followed: redirects are followed within ${configured.host} only (configure the URL it redirects to)`,
      );
    if (hop >= MAX_REDIRECTS)
      throw new SourcesError('FETCH_FAILED', `the archive URL redirected more than ${MAX_REDIRECTS} times`);
    current = next;
  }
}

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
    response = await fetchWithinHost(source.archive, signal);
  } catch (error) {
    if (error instanceof SourcesError) return fail('FETCH_FAILED', error.message);
    return signal.aborted
      ? fail('TIMEOUT', 'the download ran past sources.fetch_timeout_seconds')
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
      `the archive is ${declared} bytes, over the ${options.maxBytes}-byte cap (sources.max_bytes)`,
    );
  }
  const hash = createHash('sha256');
  const out = createWriteStream(options.file, { mode: 0o600 });
  let bytes = 0;
  try {
    for await (const chunk of response.body) {
      bytes += chunk.length;
      if (bytes > options.maxBytes) {
        fail('TOO_LARGE', `the archive is over the ${options.maxBytes}-byte cap (sources.max_bytes)`);
      }
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
  } catch (error) {
    if (error instanceof SourcesError) throw error;
    return signal.aborted
      ? fail('TIMEOUT', 'the download ran past sources.fetch_timeout_seconds')
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
