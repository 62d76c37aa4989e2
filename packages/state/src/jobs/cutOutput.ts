import type { ScriptOutput } from '@skillgate/runner';

/** How to cut job output: bytes kept of each stream, and/or the last lines of each. */
export interface CutOptions {
  readonly maxBytes?: number;
  readonly tailLines?: number;
}

function lastBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= maxBytes) return { text, cut: false };
  let start = buffer.length - maxBytes;
  // Skip the continuation bytes of a character split by the cut.
  while (start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
  return { text: buffer.subarray(start).toString('utf8'), cut: true };
}

function lastLines(text: string, count: number): { text: string; cut: boolean } {
  if (count <= 0) return { text: '', cut: text.length > 0 };
  // A final newline ends the last line; it does not start an empty one.
  let pos = text.endsWith('\n') ? text.length - 1 : text.length;
  for (let i = 0; i < count; i++) {
    const newline = pos > 0 ? text.lastIndexOf('\n', pos - 1) : -1;
    if (newline < 0) return { text, cut: false };
    pos = newline;
  }
  return { text: text.slice(pos + 1), cut: true };
}

function cutStream(text: string, options: CutOptions): { text: string; cut: boolean } {
  let result = { text, cut: false };
  if (options.maxBytes !== undefined) result = lastBytes(result.text, options.maxBytes);
  if (options.tailLines !== undefined) {
    const lines = lastLines(result.text, options.tailLines);
    result = { text: lines.text, cut: result.cut || lines.cut };
  }
  return result;
}

/** Keeps the tail of each stream of a job's output; a cut sets the stream's truncated flag. */
export function cutOutput(output: ScriptOutput, options: CutOptions): ScriptOutput {
  const stdout = cutStream(output.stdout, options);
  const stderr = cutStream(output.stderr, options);
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    stdout_truncated: output.stdout_truncated || stdout.cut,
    stderr_truncated: output.stderr_truncated || stderr.cut,
    stdout_bytes: output.stdout_bytes,
    stderr_bytes: output.stderr_bytes,
  };
}
