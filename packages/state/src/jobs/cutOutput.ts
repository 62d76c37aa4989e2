import type { JobOutput } from './types.js';

function lastBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= maxBytes) return { text, cut: false };
  let start = buffer.length - maxBytes;
  // Skip the continuation bytes of a character split by the cut.
  while (start < buffer.length && ((buffer[start] ?? 0) & 0xc0) === 0x80) start++;
  return { text: buffer.subarray(start).toString('utf8'), cut: true };
}

/** Keeps the last maxBytes of each stream of a job's output (what a record holds); a cut sets the stream's truncated flag. */
export function cutOutput(output: JobOutput, maxBytes: number): JobOutput {
  const stdout = lastBytes(output.stdout, maxBytes);
  const stderr = lastBytes(output.stderr, maxBytes);
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    stdout_truncated: output.stdout_truncated || stdout.cut,
    stderr_truncated: output.stderr_truncated || stderr.cut,
    stdout_bytes: output.stdout_bytes,
    stderr_bytes: output.stderr_bytes,
  };
}
