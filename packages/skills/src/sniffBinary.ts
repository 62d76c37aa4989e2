import { open } from 'node:fs/promises';

/** How much of a file is read to decide whether it is text. */
export const SNIFF_BYTES = 8192;

/**
 * True when `head` (the first bytes of a file) holds a NUL byte or invalid UTF-8. When `truncated`, the file
 * goes on after `head`, so a multi-byte character cut at the end is not held against it.
 */
export function looksBinary(head: Uint8Array, truncated: boolean): boolean {
  if (head.includes(0)) return true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: truncated });
    return false;
  } catch {
    return true;
  }
}

/** Reads the first SNIFF_BYTES of a file and tells whether it is binary. */
export async function sniffBinary(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    // One byte more than sniffed tells whether the file goes on past the sniffed head.
    const buffer = Buffer.alloc(SNIFF_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return looksBinary(buffer.subarray(0, Math.min(bytesRead, SNIFF_BYTES)), bytesRead > SNIFF_BYTES);
  } finally {
    await handle.close();
  }
}
