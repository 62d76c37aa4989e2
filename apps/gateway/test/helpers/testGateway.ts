import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseConfig } from '@skillgate/config';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { createGateway, type Gateway } from '../../src/index.js';

/** Repository root, so tests can point at examples/skills. */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The hostile test-only skills. */
export const PROBE_ROOT = join(REPO_ROOT, 'apps/gateway/test/fixtures/skills');
export const EXAMPLES_ROOT = join(REPO_ROOT, 'examples/skills');

/** A gateway listening on a free loopback port. */
export interface TestGateway {
  readonly gateway: Gateway;
  /** The MCP endpoint URL. */
  readonly url: URL;
  /** The base URL (no path). */
  readonly base: string;
  /** The base URL of the `observability.metrics_port` listener, when one is configured. */
  readonly metricsBase: string | undefined;
  close(): Promise<void>;
}

/** More of how startTestGateway starts. */
export interface StartTestGatewayOptions {
  /** Wait until every upstream's first connect attempt is in the catalog (default true). */
  readonly awaitUpstreams?: boolean;
  /** Listen on this port (a redirect URI registered before the start names it); default a free one. */
  readonly port?: number;
}

/**
 * Starts the real gateway on port 0 with a config given as the YAML object would be; by default resolves
 * once every upstream's first connect attempt is in the catalog (the gateway itself listens before that).
 */
export async function startTestGateway(
  input: Record<string, unknown> = {},
  env: Record<string, string | undefined> = process.env,
  logLines?: string[],
  options: StartTestGatewayOptions = {},
): Promise<TestGateway> {
  // SKILLGATE_TEST_TRANSPORT runs the same suites against the SDK's transport (see vitest.config.ts).
  const transport = process.env.SKILLGATE_TEST_TRANSPORT;
  const sessionTransport = transport === 'sdk' ? { sessionTransport: 'sdk' as const } : {};
  const withRoots = {
    ...input,
    skills: { roots: [EXAMPLES_ROOT, PROBE_ROOT], ...(input.skills as object) },
    // The test client does not re-list on list_changed: holding each get_info result for it would only slow
    // the suite. Tests of the hold (realClients/hosts.test.ts) set it.
    sessions: { relist_wait_ms: 0, ...(input.sessions as object) },
  };
  const config = parseConfig(withRoots, { baseDir: REPO_ROOT });
  // With logLines the gateway's own (redacting) logger writes into that array at the configured level
  // (default info), to assert on log content; else the gateway is silent.
  // SKILLGATE_TEST_DIRECT=off answers everything through the SDK's own path (the `direct-off` project).
  const directAnswers = process.env.SKILLGATE_TEST_DIRECT !== 'off';
  const gateway = await createGateway(
    config,
    logLines === undefined
      ? {
          env,
          directAnswers,
          ...sessionTransport,
          logger: pino({ level: process.env.SKILLGATE_TEST_LOG ?? 'silent' }) as FastifyBaseLogger,
        }
      : {
          env,
          directAnswers,
          ...sessionTransport,
          logDestination: { write: (line: string) => logLines.push(line) },
        },
  );
  const base = await gateway.app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  const metricsBase = await gateway.listenMetrics();
  if (options.awaitUpstreams !== false) await gateway.upstreamsSettled;
  return {
    gateway,
    url: new URL(config.server.path, base),
    base,
    metricsBase,
    close: () => gateway.close(),
  };
}

/** A real SDK client connected over streamable HTTP, recording the notifications it receives. */
export interface TestClient {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** Count of tools/list_changed notifications received so far. */
  listChanged(): number;
  close(): Promise<void>;
}

/** Connects an SDK Client to the gateway (optionally with a bearer token and a client name). */
export async function connectClient(
  url: URL,
  options: { token?: string; name?: string } = {},
): Promise<TestClient> {
  let changes = 0;
  const client = new Client(
    { name: options.name ?? 'skillgate-test', version: '1.0.0' },
    { capabilities: {} },
  );
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes += 1;
  });
  const headers: Record<string, string> =
    options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  await client.connect(transport);
  return {
    client,
    transport,
    listChanged: () => changes,
    close: () => client.close(),
  };
}

/** Names of the tools a client currently sees. */
export async function toolNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools();
  return tools.map((t) => t.name);
}

/** The text of a tool result's text contents, joined. */
export function textOf(result: unknown): string {
  const content = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}
