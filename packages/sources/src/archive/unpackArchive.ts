import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { x as extractTar, type ReadEntry, Parser as TarParser } from 'tar';
import yauzl from 'yauzl';
import { SourcesError } from '../sourcesError.js';
import type { SourceLimits } from '../sourceTypes.js';

/** One entry of an archive, as its header states it. */
interface ArchiveEntry {
  readonly path: string;
  /** `file`, `dir`, or what else it is (refused). */
  readonly kind: string;
  readonly size: number;
  readonly mode: number;
}

/** The reason an entry makes the whole archive unsafe, or undefined when it is a plain file or folder. */
function unsafeReason(entry: ArchiveEntry): string | undefined {
  if (entry.kind !== 'file' && entry.kind !== 'dir') return `entry "${entry.path}" is a ${entry.kind}`;
  if (entry.path.startsWith('/') || /^[A-Za-z]:/.test(entry.path) || entry.path.includes('\\')) {
    return `entry "${entry.path}" is an absolute or backslash path`;
  }
  if (entry.path.split('/').includes('..')) return `entry "${entry.path}" climbs out with ".."`;
  if (entry.path.includes('\0')) return `entry "${JSON.stringify(entry.path)}" has a NUL`;
  return undefined;
}

const TAR_KINDS: Readonly<Record<string, string>> = {
  File: 'file',
  OldFile: 'file',
  ContiguousFile: 'file',
  Directory: 'dir',
  SymbolicLink: 'symlink',
  Link: 'hard link',
  CharacterDevice: 'device',
  BlockDevice: 'device',
  FIFO: 'FIFO',
};

// What a listing may inflate beyond the entries' own bytes: headers, padding and pax records per entry.
const OVERHEAD_PER_ENTRY = 16 * 1024;

/** Totals of a listing, refused the moment they pass a cap: what comes after is never read. */
function capCounter(source: string, limits: SourceLimits): (entry: ArchiveEntry) => void {
  let files = 0;
  let bytes = 0;
  return (entry) => {
    files += 1;
    bytes += entry.size;
    if (files > limits.maxFiles) {
      throw new SourcesError('TOO_LARGE', `over ${limits.maxFiles} entries (sources.max_files)`, {
        source,
      });
    }
    if (bytes > limits.maxBytes) {
      throw new SourcesError('TOO_LARGE', `over ${limits.maxBytes} bytes unpacked (sources.max_bytes)`, {
        source,
      });
    }
  };
}

/**
 * The entries of a .tar.gz, read under the caps: the count and declared sizes are checked at each header, and
 * the inflated stream (trailing data too) may not pass the byte cap plus a per-entry overhead, so a
 * compression bomb stops at the cap instead of being inflated whole before any total is looked at.
 */
async function tarEntries(file: string, source: string, limits: SourceLimits): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  const count = capCounter(source, limits);
  const budget = limits.maxBytes + (limits.maxFiles + 2) * OVERHEAD_PER_ENTRY;
  let failure: unknown;
  const parser = new TarParser({ strict: true });
  parser.on('entry', (entry: ReadEntry) => {
    const listed: ArchiveEntry = {
      path: entry.path,
      kind: TAR_KINDS[entry.type] ?? entry.type,
      size: entry.size ?? 0,
      mode: entry.mode ?? 0o644,
    };
    entries.push(listed);
    entry.resume();
    try {
      count(listed);
    } catch (error) {
      failure ??= error;
    }
  });
  parser.on('error', (error: unknown) => {
    failure ??= error;
  });
  const ended = new Promise<void>((resolve) => parser.on('end', () => resolve()));
  const inflate = createGunzip();
  const reading = pipeline(createReadStream(file), inflate).catch((error: unknown) => {
    failure ??= error;
  });
  let inflated = 0;
  for await (const chunk of inflate as AsyncIterable<Buffer>) {
    inflated += chunk.length;
    if (inflated > budget) {
      failure ??= new SourcesError('TOO_LARGE', `inflates past ${budget} bytes (sources.max_bytes)`, {
        source,
      });
    }
    if (failure !== undefined) break;
    parser.write(chunk);
  }
  await reading;
  if (failure === undefined) {
    parser.end();
    await ended;
  }
  if (failure !== undefined) throw failure;
  return entries;
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(
      file,
      { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: true },
      (error, zip) => (error === null ? resolve(zip) : reject(error)),
    );
  });
}

const S_IFMT = 0o170000;
// The file type bits of a zip entry made on Unix (its external attributes' high 16 bits).
const ZIP_KINDS = new Map<number, string>([
  [0o100000, 'file'],
  [0o040000, 'dir'],
  [0o120000, 'symlink'],
  [0o020000, 'device'],
  [0o060000, 'device'],
  [0o010000, 'FIFO'],
  [0o140000, 'socket'],
]);

/** Walks a zip's entries; `onEntry` may read one (the next comes when its promise settles). */
async function eachZipEntry(
  file: string,
  onEntry: (entry: ArchiveEntry, zip: yauzl.ZipFile, raw: yauzl.Entry) => Promise<void>,
): Promise<void> {
  const zip = await openZip(file);
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (raw: yauzl.Entry) => {
      const unixMode = (raw.externalFileAttributes >>> 16) & 0xffff;
      const type = unixMode & S_IFMT;
      const isDir = raw.fileName.endsWith('/');
      const kind = type === 0 ? (isDir ? 'dir' : 'file') : (ZIP_KINDS.get(type) ?? 'special file');
      const entry: ArchiveEntry = {
        path: isDir ? raw.fileName.slice(0, -1) : raw.fileName,
        kind,
        size: raw.uncompressedSize,
        mode: unixMode & 0o7777,
      };
      onEntry(entry, zip, raw).then(
        () => zip.readEntry(),
        (error: unknown) => {
          // Refused mid-listing (a cap): the rest is never read, and the file is closed now.
          zip.close();
          reject(error);
        },
      );
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
}

/** Caps each entry's mode to 0644 or 0755 (executable if any x bit was set); setuid, setgid, sticky go. */
async function capModes(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      await chmod(path, 0o755);
      await capModes(path);
    } else {
      const { mode } = await lstat(path);
      await chmod(path, (mode & 0o111) !== 0 ? 0o755 : 0o644);
    }
  }
}

/** Options of unpackArchive. */
export interface UnpackArchiveOptions {
  readonly source: string;
  /** The archive file (its sha256 already checked). */
  readonly file: string;
  /** `zip`, or `tar.gz` for .tar.gz and .tgz. */
  readonly format: 'zip' | 'tar.gz';
  readonly dest: string;
  readonly limits: SourceLimits;
}

/**
 * Unpacks a verified archive into `dest`. Every entry is checked first: one that is absolute, climbs out
 * with `..`, or is a link, device or FIFO refuses the whole archive, and so do totals over the caps.
 */
export async function unpackArchive(options: UnpackArchiveOptions): Promise<void> {
  const { source, file, dest, limits } = options;
  const refuse = (reason: string): never => {
    throw new SourcesError('UNSAFE_ARCHIVE', `archive refused: ${reason}`, { source });
  };
  let entries: ArchiveEntry[] = [];
  try {
    if (options.format === 'zip') {
      const count = capCounter(source, limits);
      await eachZipEntry(file, async (entry) => {
        entries.push(entry);
        count(entry);
      });
    } else entries = await tarEntries(file, source, limits);
  } catch (error) {
    if (error instanceof SourcesError) throw error;
    // A malformed archive, or a name yauzl itself refuses (absolute, `..`).
    refuse(`it cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  for (const entry of entries) {
    const reason = unsafeReason(entry);
    if (reason !== undefined) refuse(reason);
  }
  await mkdir(dest, { recursive: true });
  if (options.format === 'zip') {
    await eachZipEntry(file, async (entry, zip, raw) => {
      const target = join(dest, entry.path);
      if (entry.kind === 'dir') {
        await mkdir(target, { recursive: true });
        return;
      }
      await mkdir(dirname(target), { recursive: true });
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(raw, (error, readable) => (error === null ? resolve(readable) : reject(error))),
      );
      await pipeline(stream, createWriteStream(target, { mode: (entry.mode & 0o111) !== 0 ? 0o755 : 0o644 }));
    });
  } else {
    await extractTar({ file, cwd: dest, strict: true, preserveOwner: false, noMtime: true });
  }
  await capModes(dest);
}
