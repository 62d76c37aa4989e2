import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** How the v2 client picks the protocol era. */
export type EraMode = 'legacy' | 'auto' | 'modern';

/** A v2 SDK client connected to the gateway, with every HTTP status it received. */
export interface V2TestClient {
  readonly client: Client;
  /** HTTP status of every request the client sent, in order. */
  readonly statuses: number[];
  /** tools/list_changed notifications received so far. */
  listChanged(): number;
  close(): Promise<void>;
}

/**
 * Connects the SDK's v2 Client: `modern` pins 2026-07-28, `auto` probes with server/discover first,
 * `legacy` opens with initialize.
 */
export async function connectV2(
  url: URL,
  options: { era: EraMode; token?: string; name?: string },
): Promise<V2TestClient> {
  const statuses: number[] = [];
  let changes = 0;
  const versionNegotiation =
    options.era === 'legacy'
      ? undefined
      : { mode: options.era === 'auto' ? ('auto' as const) : { pin: '2026-07-28' } };
  const client = new Client(
    { name: options.name ?? 'skillgate-v2-test', version: '1.0.0' },
    versionNegotiation === undefined ? {} : { versionNegotiation },
  );
  client.setNotificationHandler('notifications/tools/list_changed', async () => {
    changes += 1;
  });
  const headers: Record<string, string> =
    options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` };
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      statuses.push(response.status);
      return response;
    },
  });
  await client.connect(transport);
  return { client, statuses, listChanged: () => changes, close: () => client.close() };
}
