import { lastLines } from './lastLines.js';

/** A snapshot of one stream: the returned text, whether anything written is missing from it, total bytes. */
export interface TailSnapshot {
  readonly text: string;
  readonly truncated: boolean;
  readonly bytes: number;
}

// Small writes are merged up to this size so the chunk list stays short (a script writing byte by byte).
const MERGE_BYTES = 4096;

/** Keeps the last `maxBytes` of a stream, so memory stays bounded whatever the script writes. */
export class OutputTail {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  #total = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = Math.max(0, maxBytes);
  }

  /** Appends a chunk, dropping the oldest bytes past maxBytes. */
  push(chunk: Buffer): void {
    this.#total += chunk.length;
    const last = this.#chunks.at(-1);
    if (last !== undefined && last.length + chunk.length <= MERGE_BYTES) {
      this.#chunks[this.#chunks.length - 1] = Buffer.concat([last, chunk]);
    } else {
      this.#chunks.push(chunk);
    }
    this.#kept += chunk.length;
    while (this.#kept > this.#maxBytes) {
      const first = this.#chunks[0];
      if (first === undefined) break;
      const excess = this.#kept - this.#maxBytes;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#kept -= first.length;
      } else {
        // Copy, so the dropped head of a large chunk can be freed.
        this.#chunks[0] = Buffer.from(first.subarray(excess));
        this.#kept -= excess;
      }
    }
  }

  /** The last non-empty line written so far (after a final \r, for progress bars), cut to `maxChars`. */
  lastLine(maxChars = 200): string {
    // Only the end matters: decode the last few KiB, not the whole kept tail.
    const parts: Buffer[] = [];
    let bytes = 0;
    for (let i = this.#chunks.length - 1; i >= 0 && bytes < MERGE_BYTES; i--) {
      const chunk = this.#chunks[i];
      if (chunk === undefined) break;
      parts.unshift(chunk);
      bytes += chunk.length;
    }
    const lines = Buffer.concat(parts)
      .toString('utf8')
      .split(/[\r\n]/);
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]?.trim() ?? '';
      if (line !== '') return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
    }
    return '';
  }

  /** The last `tailLines` lines of what is kept, decoded as UTF-8. */
  snapshot(tailLines: number): TailSnapshot {
    let kept = Buffer.concat(this.#chunks, this.#kept);
    const cut = this.#total > this.#kept;
    // The byte cut may split a character: drop its orphaned continuation bytes instead of showing U+FFFD.
    let start = 0;
    while (cut && start < 3 && ((kept[start] ?? 0) & 0xc0) === 0x80) start++;
    kept = kept.subarray(start);
    const lines = lastLines(kept.toString('utf8'), tailLines);
    return { text: lines.text, truncated: cut || lines.cut, bytes: this.#total };
  }
}
