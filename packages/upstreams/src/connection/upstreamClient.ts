import { Client, type ClientOptions, type JsonSchemaValidator } from '@modelcontextprotocol/client';
import type { UpstreamSnapshot } from '@skillgate/skills';
import type { UpstreamDefinition } from '../types.js';

/** Options of createUpstreamClient. */
export interface UpstreamClientOptions {
  readonly definition: UpstreamDefinition;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The server said its tool list changed (debounced); the connection lists again. */
  readonly toolsChanged: () => void;
}

/**
 * Accepts every structuredContent. An upstream's outputSchema is its own, untrusted input: the SDK's default
 * validator (Ajv) runs its `pattern`s with the backtracking RegExp engine on the event loop, and `^(a+)+$`
 * against 34 characters froze the whole gateway. The gateway neither serves an upstream's outputSchema to
 * callers nor reads structuredContent itself: it passes it on, bounded by max_result_bytes, and the
 * caller's own client may validate it (docs/decisions.md, "Upstream output is not validated").
 */
const UNVALIDATED_OUTPUT: NonNullable<ClientOptions['jsonSchemaValidator']> = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

// Most pages of one tools/list walk; a server whose cursor never converges is broken.
const MAX_LIST_PAGES = 100;

/** What the gateway's client tells upstreams it can do: nothing beyond calling (no sampling, roots, elicitation). */
export const UPSTREAM_CLIENT_CAPABILITIES = Object.freeze({});

/** The MCP client of one connect attempt, not yet connected: how it negotiates and hears list changes. */
export function createUpstreamClient(options: UpstreamClientOptions): Client {
  return new Client(
    { name: options.clientInfo.name, version: options.clientInfo.version },
    {
      capabilities: { ...UPSTREAM_CLIENT_CAPABILITIES },
      jsonSchemaValidator: UNVALIDATED_OUTPUT,
      listMaxPages: MAX_LIST_PAGES,
      // HTTP upstreams of either era: probe with server/discover, fall back to initialize. A stdio server
      // that exits on an unknown first request would be lost to the probe, so stdio opens with initialize
      // (every 2025- and 2026-era server answers it).
      ...(options.definition.url === undefined ? {} : { versionNegotiation: { mode: 'auto' as const } }),
      listChanged: {
        // The connection lists again itself, so a failed relisting takes the upstream down. It also paces
        // relistings itself: the client's debounce restarts on every notice, so a server that notifies more
        // often than its window would never be listed again.
        tools: { autoRefresh: false, debounceMs: 0, onChanged: options.toolsChanged },
      },
    },
  );
}

/** The server's name, title and version from a connected client's handshake, as the snapshot keeps them. */
export function serverInfoOf(client: Client): UpstreamSnapshot['serverInfo'] {
  const info = client.getServerVersion();
  if (info === undefined) return undefined;
  return Object.freeze({
    name: info.name,
    ...(info.title === undefined ? {} : { title: info.title }),
    ...(info.version === undefined ? {} : { version: info.version }),
  });
}
