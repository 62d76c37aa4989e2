/** Raw-HTTP helpers for testing the endpoint's status codes without the SDK client. */
export const ACCEPT = 'application/json, text/event-stream';

/** A JSON-RPC initialize request body. */
export const initializeBody = (id = 1, clientName = 'raw-http') => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: clientName, version: '1' } },
});

/** POSTs a JSON-RPC body (object, or a raw string sent as is). */
export function post(url: URL, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** The JSON-RPC messages of an SSE (or plain JSON) response body, in order. */
export async function messagesOf(response: Response): Promise<Array<Record<string, unknown>>> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('application/json')) return [JSON.parse(text)];
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** Opens a session by raw HTTP and sends notifications/initialized; returns its id. */
export async function openSession(url: URL, headers: Record<string, string> = {}): Promise<string> {
  const response = await post(url, initializeBody(), headers);
  const id = response.headers.get('mcp-session-id');
  await response.text();
  if (id === null) throw new Error(`initialize failed with ${response.status}`);
  const done = await post(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': id, ...headers },
  );
  await done.text();
  return id;
}

/** What modernPost sends: a 2026-07-28 request as a client without a session sends it. */
export interface ModernPost {
  readonly method: string;
  /** Its params besides the per-request `_meta`. */
  readonly params?: Record<string, unknown>;
  /** The bearer token. */
  readonly token: string;
  /** Further headers (an X-Forwarded-For, say). */
  readonly headers?: Record<string, string>;
}

/** POSTs one 2026-07-28 request: the revision's headers and per-request `_meta`, a bearer token. */
export function modernPost(url: URL, request: ModernPost): Promise<Response> {
  return post(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: request.method,
      params: {
        ...request.params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    },
    {
      authorization: `Bearer ${request.token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': request.method,
      ...request.headers,
    },
  );
}

/** A 2026-07-28 tools/list with `token` as its bearer token and any further headers. */
export function modernToolsList(
  url: URL,
  token: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return modernPost(url, { method: 'tools/list', token, headers });
}
