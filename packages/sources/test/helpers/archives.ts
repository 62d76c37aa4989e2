import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import yazl from 'yazl';

/** One entry of a hand-built tar: type `0` file, `2` symlink, `5` folder, `6` FIFO. */
export interface TarEntry {
  readonly path: string;
  readonly type?: '0' | '1' | '2' | '3' | '5' | '6';
  readonly body?: string;
  readonly linkname?: string;
  readonly mode?: number;
  /** The size the header states, when it is not the body's (a bomb's header with its body cut short). */
  readonly declaredSize?: number;
}

/** How tarGz ends the archive. */
export interface TarGzOptions {
  /** Zero bytes inflated after the end-of-archive blocks (data hidden past the end). */
  readonly trailingZeros?: number;
  /** Cut the compressed bytes short by this many (a truncated download: no gzip trailer, a lost tail). */
  readonly truncateBy?: number;
}

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(512);
  const put = (text: string, offset: number, length: number) => block.write(text, offset, length, 'latin1');
  const octal = (n: number, length: number) => n.toString(8).padStart(length - 1, '0');
  put(entry.path, 0, 100);
  put(octal(entry.mode ?? 0o644, 8), 100, 8);
  put(octal(0, 8), 108, 8);
  put(octal(0, 8), 116, 8);
  put(octal(size, 12), 124, 12);
  put(octal(0, 12), 136, 12);
  put('        ', 148, 8);
  put(entry.type ?? '0', 156, 1);
  put(entry.linkname ?? '', 157, 100);
  put('ustar\u000000', 257, 8);
  let sum = 0;
  for (const byte of block) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8);
  return block;
}

/** A .tar.gz written byte by byte, so hostile entries (`..`, links, FIFOs) are possible. */
export function tarGz(entries: readonly TarEntry[], options: TarGzOptions = {}): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.type === undefined || entry.type === '0' ? (entry.body ?? '') : '');
    parts.push(
      header(entry, entry.declaredSize ?? body.length),
      body,
      Buffer.alloc((512 - (body.length % 512)) % 512),
    );
  }
  parts.push(Buffer.alloc(1024 + (options.trailingZeros ?? 0)));
  const gz = gzipSync(Buffer.concat(parts));
  return gz.subarray(0, gz.length - (options.truncateBy ?? 0));
}

/** A .zip of files (path -> content, or a symlink when `link` is given). */
export async function zip(
  files: Readonly<Record<string, string | { readonly link: string }>>,
): Promise<Buffer> {
  const archive = new yazl.ZipFile();
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === 'string') archive.addBuffer(Buffer.from(content), path, { mode: 0o100644 });
    else archive.addBuffer(Buffer.from(content.link), path, { mode: 0o120777 });
  }
  archive.end();
  const chunks: Buffer[] = [];
  for await (const chunk of archive.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Hex sha256 of bytes. */
export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
