import { readFile } from 'node:fs/promises';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { RunResult } from '@skillgate/runner';
import type { SkillFile } from '@skillgate/skills';

/** A tool result that reports a failure the model can act on (DESIGN §4, STYLE rule 4). */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** Renders a finished run as text plus structuredContent; isError on non-zero exit or timeout. */
export function runResultToTool(result: RunResult): CallToolResult {
  const status = result.timed_out
    ? `timed out after ${result.duration_ms} ms`
    : result.signal !== null
      ? `killed by ${result.signal} after ${result.duration_ms} ms`
      : `exit code ${result.exit_code} in ${result.duration_ms} ms`;
  const section = (name: string, text: string, truncated: boolean, bytes: number): string =>
    `--- ${name}${truncated ? ` (last part of ${bytes} bytes)` : ''} ---\n${text}`;
  const parts = [status];
  if (result.stdout !== '' || result.stdout_truncated)
    parts.push(section('stdout', result.stdout, result.stdout_truncated, result.stdout_bytes));
  if (result.stderr !== '' || result.stderr_truncated)
    parts.push(section('stderr', result.stderr, result.stderr_truncated, result.stderr_bytes));
  return {
    isError: result.timed_out || result.exit_code !== 0,
    content: [{ type: 'text', text: parts.join('\n') }],
    structuredContent: { ...result },
  };
}

/** Limits of read tools, from the `resources` config section. */
export interface ReadLimits {
  readonly maxTextBytes: number;
  readonly maxBinaryBytes: number;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Reads a skill file for a read tool: text (cut with a note), image content, or an embedded blob. */
export async function readSkillFile(
  skillName: string,
  file: SkillFile,
  limits: ReadLimits,
): Promise<CallToolResult> {
  const uri = `skill://${skillName}/${file.path.split('/').map(encodeURIComponent).join('/')}`;
  if (file.isBinary && file.size > limits.maxBinaryBytes) {
    return toolError(
      `${file.path} is ${file.size} bytes, over the ${limits.maxBinaryBytes}-byte limit of read tools.`,
    );
  }
  let data: Buffer;
  try {
    data = await readFile(file.absolutePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    return toolError(`${file.path} could not be read (${code}); the skill may have changed on disk.`);
  }
  if (file.isBinary) {
    const blob = data.toString('base64');
    if (IMAGE_TYPES.has(file.mimeType)) {
      return { content: [{ type: 'image', data: blob, mimeType: file.mimeType }] };
    }
    return { content: [{ type: 'resource', resource: { uri, mimeType: file.mimeType, blob } }] };
  }
  if (data.length <= limits.maxTextBytes) {
    return { content: [{ type: 'text', text: data.toString('utf8') }] };
  }
  // Cut on a line boundary when one is near, so the model does not see half a line.
  let end = limits.maxTextBytes;
  const lastNewline = data.lastIndexOf(0x0a, end - 1);
  if (lastNewline > end / 2) end = lastNewline + 1;
  const text = data.subarray(0, end).toString('utf8');
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: `[truncated: showed ${end} of ${data.length} bytes of ${file.path}]` },
    ],
  };
}
