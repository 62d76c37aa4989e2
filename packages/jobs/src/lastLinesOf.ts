import { lastLines, type ScriptOutput } from '@skillgate/runner';

/** The last `tailLines` lines of each stream of a job's output (undefined: all kept); a cut sets its truncated flag. */
export function lastLinesOf(output: ScriptOutput, tailLines: number | undefined): ScriptOutput {
  if (tailLines === undefined) return output;
  const stdout = lastLines(output.stdout, tailLines);
  const stderr = lastLines(output.stderr, tailLines);
  // The order of the fields is the order of the status's JSON text.
  return {
    stdout: stdout.text,
    stderr: stderr.text,
    stdout_truncated: output.stdout_truncated || stdout.cut,
    stderr_truncated: output.stderr_truncated || stderr.cut,
    stdout_bytes: output.stdout_bytes,
    stderr_bytes: output.stderr_bytes,
  };
}
