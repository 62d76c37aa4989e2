import { type CallToolResult, ResourceNotFoundError, specTypeSchemas } from '@modelcontextprotocol/server';
import type { SkillReadResult } from '@modelcontextprotocol/server/ext/skills';
import type { Principal } from '../auth/accessPolicy.js';
import { isRenderedOnce, renderOnce } from '../core/renderedJson.js';
import { SDK_ERRORS } from '../errors/sdkErrors.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';

// What the SDK's Server does to a handler's answer before it encodes it (encodeResult.ts), for the direct paths
// of both eras (modernAnswers.ts, sessionAnswers.ts): the same checks and shapes, so the bytes are the SDK's.
// The tests in test/directPaths/ hold both paths byte-equal to the SDK's.

// Registered results (core/renderedJson.ts) are deep-frozen, so their checked form is kept, and written once.
const checkedOnce = new WeakMap<object, Record<string, unknown>>();

/** The SDK validates every tools/call result with its schema (and answers with what the schema returns). */
export function validToolResult(result: CallToolResult): Record<string, unknown> {
  if (!isRenderedOnce(result)) return checkedToolResult(result);
  let checked = checkedOnce.get(result);
  if (checked === undefined) {
    checked = renderOnce(checkedToolResult(result));
    checkedOnce.set(result, checked);
  }
  return checked;
}

function checkedToolResult(result: CallToolResult): Record<string, unknown> {
  const normalized = result.content === undefined ? { ...result, content: [] } : result;
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(normalized);
  if (checked instanceof Promise || checked.issues !== undefined) {
    throw SDK_ERRORS.invalidToolResult();
  }
  return checked.value as Record<string, unknown>;
}

/** The scheme of the Skills extension's resource template. */
const SKILL_SCHEME = 'skill://';

/**
 * resources/read of a `skill://` file as the SDK's McpServer answers it through the Skills extension's
 * template: the URI parsed as a URL first (dot segments, spellings), only `skill://` served, and the file as
 * text or a base64 blob.
 */
export async function readSkillResourceResult(
  skills: Pick<SkillsService, 'readResource'>,
  principal: Principal,
  uri: string,
): Promise<{ contents: Array<Record<string, unknown>> }> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw SDK_ERRORS.invalidResourceUri(uri);
  }
  if (!url.href.startsWith(SKILL_SCHEME)) throw new ResourceNotFoundError(uri);
  const read = await skills.readResource(principal, url.href);
  if (read === undefined) throw new ResourceNotFoundError(url.href);
  return { contents: [resourceContents(url.href, read)] };
}

/** A read skill file as resource contents (text, or a base64 blob), as the Skills extension writes it. */
function resourceContents(uri: string, read: SkillReadResult): Record<string, unknown> {
  const mimeType = read.mimeType === undefined ? {} : { mimeType: read.mimeType };
  return 'text' in read
    ? { uri, ...mimeType, text: read.text }
    : { uri, ...mimeType, blob: Buffer.from(read.bytes).toString('base64') };
}

/** A JSON-RPC error object for a thrown error, as the SDK writes it (-32002 is written as -32602 in both eras). */
export function errorObjectOf(error: unknown): { code: number; message: string; data?: unknown } {
  const raw = (error as { code?: unknown }).code;
  const code = typeof raw === 'number' && Number.isSafeInteger(raw) ? raw : -32603;
  const data = (error as { data?: unknown }).data;
  const message = (error as { message?: unknown }).message;
  return {
    code: code === -32002 ? -32602 : code,
    message: typeof message === 'string' ? message : 'Internal error',
    ...(data === undefined ? {} : { data }),
  };
}
