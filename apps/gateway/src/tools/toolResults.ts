import type { CallToolResult } from '@modelcontextprotocol/server';
import type { LimitName, RunResult } from '@skillgate/runner';
import {
  type BoundedRead,
  readServedFile,
  type ServedFileCache,
  type SkillFile,
  SkillsError,
  skillUri,
} from '@skillgate/skills';
import { renderOnce } from '../core/renderedJson.js';

/** A tool result that reports a failure the model can act on (docs/decisions.md, first entry). */
export function toolError(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The config key of each limit a run can hit (docs/sandbox.md). */
const LIMIT_KEYS: Readonly<Record<LimitName, string>> = {
  memory: 'memory_mb',
  processes: 'processes',
  file_bytes: 'file_bytes',
  cpu_seconds: 'cpu_seconds',
};

/** Renders a finished run as text plus structuredContent; isError on non-zero exit or timeout. */
export function runResultToTool(result: RunResult): CallToolResult {
  const status = result.timed_out
    ? `timed out after ${result.duration_ms} ms`
    : result.signal !== null
      ? `killed by ${result.signal} after ${result.duration_ms} ms`
      : `exit code ${result.exit_code} in ${result.duration_ms} ms`;
  // The model reads the text, not structuredContent: name the limit so it does not retry the same run.
  const limit =
    result.limit_exceeded === undefined
      ? ''
      : `; stopped by the scripts.limits.${LIMIT_KEYS[result.limit_exceeded]} limit`;
  const section = (name: string, text: string, truncated: boolean, bytes: number): string =>
    `--- ${name}${truncated ? ` (last part of ${bytes} bytes)` : ''} ---\n${text}`;
  const parts = [status + limit];
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

/** Why a file could not be read, in words for the model. */
function unreadableReason(error: unknown): string {
  if (!(error instanceof SkillsError)) return 'unknown error';
  switch (error.code) {
    case 'FILE_NOT_REGULAR':
      return 'it is no longer a regular file';
    case 'FILE_TIMEOUT':
    case 'FILE_BUSY':
      return 'the file system did not answer in time';
    default: {
      const cause = error.cause as NodeJS.ErrnoException | undefined;
      return cause?.code ?? error.code;
    }
  }
}

function unreadable(file: SkillFile, error: unknown): CallToolResult {
  if (error instanceof SkillsError && error.code === 'FILE_CHANGED') {
    return toolError(
      `${file.path} changed on disk since the skills catalog was loaded, so it is not served; try again after the reload.`,
    );
  }
  return toolError(
    `${file.path} could not be read (${unreadableReason(error)}); the skill may have changed on disk.`,
  );
}

/** The end of the longest prefix of `data` (at most `max` bytes) that ends on a whole UTF-8 character. */
function utf8Boundary(data: Buffer, max: number): number {
  let end = Math.min(max, data.length);
  // Step back over continuation bytes (10xxxxxx) to the lead byte of a character the cut would split.
  let back = end;
  while (back > 0 && back > end - 4 && ((data[back - 1] ?? 0) & 0xc0) === 0x80) back--;
  const lead = data[back - 1] ?? 0;
  const width = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (back > 0 && back - 1 + width > end) end = back - 1;
  return end;
}

/**
 * Reads a skill file for a read tool: text (cut with a note), image content, or an embedded blob. At most
 * the cap is kept, from one handle opened on a regular file exactly where the catalog found it, and only
 * the catalog's bytes are served (size and digest, like resources/read): a file grown huge, replaced by a
 * FIFO, or reached through a folder swapped for a symlink costs at most the cap and one error
 * (docs/decisions.md, "Bounded file access" and "Skill files open beneath their skill").
 */
export async function readSkillFile(
  skillName: string,
  file: SkillFile,
  limits: ReadLimits,
  /** The catalog's kept bytes of small files. */
  cache?: ServedFileCache,
): Promise<CallToolResult> {
  if (file.isBinary && file.size > limits.maxBinaryBytes) return tooBig(file, file.size, limits);
  let read: BoundedRead;
  try {
    read = await readServedFile(file, {
      maxBytes: file.isBinary ? limits.maxBinaryBytes : limits.maxTextBytes,
      ...(cache === undefined ? {} : { cache }),
    });
  } catch (error) {
    return unreadable(file, error);
  }
  if (read.truncated)
    return file.isBinary ? tooBig(file, read.size, limits) : truncatedText(file, read, limits);
  // Whole bytes kept by the catalog's cache are the same Buffer on every hit, and the result is made of
  // them and their one file alone: made once, and written as JSON once (core/renderedJson.ts).
  let result = resultOfBytes.get(read.bytes);
  if (result === undefined) {
    result = renderOnce(wholeRead(skillName, file, read.bytes));
    resultOfBytes.set(read.bytes, result);
  }
  return result;
}

/** The read result of each kept Buffer of whole file bytes (it depends on nothing else). */
const resultOfBytes = new WeakMap<Buffer, CallToolResult>();

const tooBig = (file: SkillFile, size: number, limits: ReadLimits): CallToolResult =>
  toolError(`${file.path} is ${size} bytes, over the ${limits.maxBinaryBytes}-byte limit of read tools.`);

/** The read result of a file's whole bytes: text, image content, or an embedded blob. */
function wholeRead(skillName: string, file: SkillFile, data: Buffer): CallToolResult {
  if (!file.isBinary) return { content: [{ type: 'text', text: data.toString('utf8') }] };
  const blob = data.toString('base64');
  if (IMAGE_TYPES.has(file.mimeType)) {
    return { content: [{ type: 'image', data: blob, mimeType: file.mimeType }] };
  }
  const uri = skillUri(skillName, file.path);
  return { content: [{ type: 'resource', resource: { uri, mimeType: file.mimeType, blob } }] };
}

/** A text file cut at the cap, with a note. */
function truncatedText(file: SkillFile, read: BoundedRead, limits: ReadLimits): CallToolResult {
  const data = read.bytes;
  // Cut on a line boundary when one is near, so the model does not see half a line; else on a character.
  let end = utf8Boundary(data, limits.maxTextBytes);
  const lastNewline = data.lastIndexOf(0x0a, end - 1);
  if (lastNewline > end / 2) end = lastNewline + 1;
  const text = data.subarray(0, end).toString('utf8');
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: `[truncated: showed ${end} of ${read.size} bytes of ${file.path}]` },
    ],
  };
}
