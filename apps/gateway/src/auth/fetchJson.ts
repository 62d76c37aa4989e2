/** Options of fetchJson. */
export interface FetchJsonOptions {
  /** Longest wait for the whole answer. */
  readonly timeoutMs: number;
  /** Largest body read; a longer one is refused, not buffered. */
  readonly maxBytes: number;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * Fetches a JSON document from an authorization server with a deadline and a size cap, so a slow or
 * hostile server costs bounded time and memory. Throws on a non-2xx status, a timeout or a bad body.
 */
export async function fetchJson(url: string, options: FetchJsonOptions): Promise<unknown> {
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers: { accept: 'application/json', ...options.headers },
    body: options.body,
    redirect: 'error',
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`${url} answered ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > options.maxBytes) throw new Error(`${url} sent more than ${options.maxBytes} bytes`);
    chunks.push(chunk);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
}
