import type { SkillReadResult } from '@modelcontextprotocol/server/ext/skills';
import {
  type BoundedRead,
  readServedFile,
  type ServedFileCache,
  type SkillFile,
  SkillsError,
} from '@skillgate/skills';
import { GatewayError } from '../errors/gatewayError.js';
import { toProtocolError } from '../errors/toGatewayError.js';

/** Options of readSkillResource: the read tools' caps (`resources.*`) and where read failures are logged. */
export interface ResourceReadOptions {
  readonly maxTextBytes: number;
  readonly maxBinaryBytes: number;
  /** Told why a file could not be read (the client only learns that it could not). */
  readonly onUnreadable?: (error: unknown) => void;
}

// Text only when it decodes to exactly these bytes: a host re-encodes text to check the digest.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function losslessText(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A read refused with one of the error table's codes (docs/errors.md), as the SDK's error the handler throws. */
const refused = (
  uri: string,
  code: 'RESOURCE_TOO_LARGE' | 'RESOURCE_CHANGED' | 'RESOURCE_UNREADABLE',
  message: string,
  data: Record<string, unknown> = {},
) => toProtocolError(new GatewayError(code, message, { data: { uri, ...data } }));

/**
 * Reads a served skill file for resources/read (docs/skills-extension.md): whole or not at all. A file over
 * its cap is an error rather than a cut body (a cut body would fail the host's digest check), and so are
 * bytes that no longer match the published size and digest (changed on disk since the catalog was built).
 * Text that is valid UTF-8 goes out as text, everything else as bytes (a base64 blob) with its MIME type.
 */
export async function readSkillResource(
  uri: string,
  file: SkillFile,
  limits: ResourceReadOptions,
  /** The catalog's kept bytes of small files. */
  cache?: ServedFileCache,
): Promise<SkillReadResult> {
  const cap = file.isBinary ? limits.maxBinaryBytes : limits.maxTextBytes;
  const tooLarge = (size: number) =>
    refused(
      uri,
      'RESOURCE_TOO_LARGE',
      `${uri} is ${size} bytes, over the ${cap}-byte limit of resources/read; it is served whole or not at all`,
      { size, limit: cap },
    );
  if (file.size > cap) throw tooLarge(file.size);
  let read: BoundedRead;
  try {
    // The catalog's bytes or nothing: size and digest are checked by the read itself.
    read = await readServedFile(file, { maxBytes: cap, ...(cache === undefined ? {} : { cache }) });
  } catch (error) {
    if (error instanceof SkillsError && error.code === 'FILE_CHANGED') {
      throw refused(
        uri,
        'RESOURCE_CHANGED',
        `${uri} changed since the skills catalog was loaded; try again after the reload`,
      );
    }
    limits.onUnreadable?.(error);
    throw refused(uri, 'RESOURCE_UNREADABLE', `${uri} could not be read`);
  }
  const bytes = read.bytes;
  const text = file.isBinary ? undefined : losslessText(bytes);
  return text === undefined ? { bytes, mimeType: file.mimeType } : { text, mimeType: file.mimeType };
}
