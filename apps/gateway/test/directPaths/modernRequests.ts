/** The 2026-07-28 revision, as the direct-path tests send it. */
export const MODERN = '2026-07-28';

/** The per-request `_meta` a 2026-07-28 client sends, naming the test as the client. */
export const modernMeta = (client: string) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: client, version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
});

/** One 2026-07-28 request of a direct-path test. */
export interface ModernRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** The Mcp-Name header, for the methods that carry one. */
  readonly name?: string;
}

/** What came back, byte for byte: the tests compare the direct path's answer with the SDK path's. */
export interface ModernAnswer {
  readonly status: number;
  readonly type: string | null;
  readonly length: string | null;
  /** The body's length in bytes. */
  readonly bytes: number;
  readonly body: string;
}

/**
 * POSTs one request as a 2026-07-28 client does (the headers the revision requires, `meta` merged under the
 * request's own `_meta`), and reads the answer whole.
 */
export async function postModern(
  url: URL,
  sent: ModernRequest,
  id: number | string,
  meta: Record<string, unknown>,
): Promise<ModernAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': sent.method,
      ...(sent.name === undefined ? {} : { 'mcp-name': sent.name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: sent.method,
      params: { ...sent.params, _meta: { ...meta, ...(sent.params._meta as object | undefined) } },
    }),
  });
  return answerOf(response);
}

/** A response read whole, with the headers that frame it (either era). */
export async function answerOf(response: Response): Promise<ModernAnswer> {
  const bytes = Buffer.from(await response.arrayBuffer());
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    length: response.headers.get('content-length'),
    bytes: bytes.length,
    body: bytes.toString('utf8'),
  };
}
