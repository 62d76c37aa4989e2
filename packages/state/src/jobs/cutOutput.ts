import { lastLines, type ScriptOutput } from '@skillgate/runner';

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
