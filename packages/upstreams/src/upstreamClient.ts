import { Client } from '@modelcontextprotocol/client';
import type { UpstreamSnapshot } from '@skillgate/skills';
import type { UpstreamDefinition } from './types.js';

/** Options of createUpstreamClient. */
export interface UpstreamClientOptions {
  readonly definition: UpstreamDefinition;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The server said its tool list changed (debounced); the connection lists again. */
  readonly toolsChanged: () => void;
}

// Most pages of one tools/list walk; a server whose cursor never converges is broken.
const MAX_LIST_PAGES = 100;

/** The MCP client of one connect attempt, not yet connected: how it negotiates and hears list changes. */
export function createUpstreamClient(options: UpstreamClientOptions): Client {
  return new Client(
    { name: options.clientInfo.name, version: options.clientInfo.version },
    {
      capabilities: {},
      listMaxPages: MAX_LIST_PAGES,
      // HTTP upstreams of either era: probe with server/discover, fall back to initialize. A stdio server
      // that exits on an unknown first request would be lost to the probe, so stdio opens with initialize
      // (every 2025- and 2026-era server answers it).
      ...(options.definition.url === undefined ? {} : { versionNegotiation: { mode: 'auto' as const } }),
      listChanged: {
        // The connection lists again itself, so a failed relisting takes the upstream down.
        tools: { autoRefresh: false, debounceMs: 50, onChanged: options.toolsChanged },
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
