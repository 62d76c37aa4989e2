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
