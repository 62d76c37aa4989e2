import type { IncomingMessage, ServerResponse } from 'node:http';
import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  Server,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { Principal } from '../accessPolicy.js';
import type { Audience } from '../disclosure/disclosurePolicy.js';
import type { GatewayRuntime } from '../runtime.js';
import { SERVER_INFO } from '../sessionServer.js';
import { registerToolHandlers } from '../toolHandlers.js';

/** The 2026-07-28 side of the endpoint: one handler for every modern request, plus its change bus. */
export interface ModernEndpoint {
  /** Serves one modern request (the body already parsed by Fastify). */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal): Promise<void>;
  /**
   * The JSON of a first-page tools/list result for a principal, exactly as the SDK's modern path would
   * write it, rendered once per (catalog, principal): the hot path answers from it (docs/protocol-eras.md).
   */
  listResult(principal: Principal): string;
  /** Publishes tools/list_changed to every open subscriptions/listen stream. */
  toolsChanged(): void;
  close(): Promise<void>;
}

/** Options of createModernEndpoint. */
export interface ModernEndpointOptions {
  /** Change bus of subscriptions/listen (in-process by default; shared across replicas when given). */
  readonly bus?: ServerEventBus;
}

// Fastify authenticated the request; the SDK hands `req.auth` to the server factory as authInfo.
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

const principalOf = (authInfo: AuthInfo | undefined): Principal => {
  const principal = authInfo?.extra?.principal as Principal | undefined;
  // The route sets it on every request before the handler runs; a request without one is a bug.
  if (principal === undefined) throw new Error('modern request without an authenticated principal');
  return principal;
};

/**
 * Serves MCP 2026-07-28 with the SDK's own modern entry (createMcpHandler in strict mode): discover,
 * `_meta` envelopes, header checks, -32022, subscriptions/listen. Each request gets a fresh low-level
 * Server whose tool list depends only on the principal and the catalog (docs/protocol-eras.md).
 */
export function createModernEndpoint(
  runtime: GatewayRuntime,
  options: ModernEndpointOptions = {},
): ModernEndpoint {
  const { config } = runtime;
  const handler: McpHttpHandler = createMcpHandler(
    ({ authInfo }) => {
      const principal = principalOf(authInfo);
      const catalog = runtime.catalogs.current;
      const audience = audienceOf(principal);
      const cache = {
        ttlMs: config.tools.list_ttl_ms,
        cacheScope: runtime.disclosure.cacheScope(catalog, principal),
      };
      const server = new Server(SERVER_INFO, {
        capabilities: { tools: { listChanged: true } },
        instructions: runtime.disclosure.instructions(catalog, audience),
        cacheHints: { 'tools/list': cache, 'server/discover': cache },
      });
      registerToolHandlers(server, runtime, audience);
      return server;
    },
    {
      legacy: 'reject',
      ...(options.bus === undefined ? {} : { bus: options.bus }),
      maxRequestBodySize: config.server.body_limit_bytes,
      onerror: (error) => runtime.log.debug({ err: error }, 'modern request rejected'),
    },
  );
  const audienceOf = (principal: Principal): Audience => ({
    era: 'modern',
    disclosure: config.skills.modern_disclosure,
    principal,
    // No sessions in this era: jobs belong to the principal that started them.
    scopeKey: `principal:${principal.name}`,
  });
  const listResults = new WeakMap<object, Map<string, string>>();
  const serverMeta = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
  const serve: NodeMcpRequestHandler = toNodeHandler(handler, {
    onerror: (error) => runtime.log.error({ err: error }, 'modern request failed'),
  });
  return {
    async handle(req, res, body, principal) {
      (req as AuthenticatedRequest).auth = {
        token: '',
        clientId: principal.name,
        scopes: [],
        extra: { principal },
      };
      await serve(req, res, body);
    },
    listResult(principal) {
      const catalog = runtime.catalogs.current;
      let perCatalog = listResults.get(catalog);
      if (perCatalog === undefined) {
        perCatalog = new Map();
        listResults.set(catalog, perCatalog);
      }
      const cached = perCatalog.get(principal.name);
      if (cached !== undefined) return cached;
      // The modern list never depends on unlocks, so the view needs no store access.
      const allowed = runtime.policy.allowedSkills(principal, catalog);
      const tools = catalog.listTools({
        disclosure: audienceOf(principal).disclosure,
        unlocked: new Set(),
        allowed,
      });
      const json = JSON.stringify({
        tools,
        resultType: 'complete',
        ttlMs: config.tools.list_ttl_ms,
        cacheScope: runtime.disclosure.cacheScope(catalog, principal),
        _meta: serverMeta,
      });
      perCatalog.set(principal.name, json);
      return json;
    },
    toolsChanged: () => handler.notify.toolsChanged(),
    close: () => handler.close(),
  };
}
