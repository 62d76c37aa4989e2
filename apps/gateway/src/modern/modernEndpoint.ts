import type { IncomingMessage, ServerResponse } from 'node:http';
import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import {
  type AuthInfo,
  createMcpHandler,
  type McpHttpHandler,
  McpServer,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { type Principal, viewKeyOf } from '../auth/accessPolicy.js';
import type { Audience } from '../disclosure/disclosurePolicy.js';
import { SERVER_INFO } from '../legacy/sessionServer.js';
import type { GatewayRuntime } from '../runtime.js';
import { pageStartOf, skillsPage } from '../skillsExtension/skillsPage.js';
import { skillsServiceOf } from '../skillsExtension/skillsServiceOf.js';
import { registerToolHandlers } from '../tools/toolHandlers.js';

/** The 2026-07-28 side of the endpoint: one handler for every modern request, plus its change bus. */
export interface ModernEndpoint {
  /** Serves one modern request (the body already parsed by Fastify). */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal): Promise<void>;
  /**
   * The JSON of a first-page tools/list result for a principal, exactly as the SDK's modern path would
   * write it, rendered once per (catalog, principal): the hot path answers from it (docs/protocol-eras.md).
   */
  listResult(principal: Principal): string;
  /**
   * The same for a page of skills/list (the Skills extension), rendered once per (catalog, principal, page);
   * undefined when `cursor` is invalid or not on a page boundary (the SDK's path answers it then).
   */
  skillsListResult(principal: Principal, cursor?: string): string | undefined;
  /** Publishes tools/list_changed to every open subscriptions/listen stream. */
  toolsChanged(): void;
  /** Publishes resources/list_changed (skill entries changed) to every open subscriptions/listen stream. */
  resourcesChanged(): void;
  /** Publishes prompts/list_changed to every open subscriptions/listen stream. */
  promptsChanged(): void;
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
  const skills = skillsServiceOf(runtime);
  const handler: McpHttpHandler = createMcpHandler(
    ({ authInfo }) => {
      const principal = principalOf(authInfo);
      const catalog = runtime.catalogs.current;
      const audience = audienceOf(principal);
      const cache = {
        ttlMs: config.tools.list_ttl_ms,
        cacheScope: runtime.disclosure.cacheScope(catalog, principal),
      };
      // McpServer only as the holder the SDK's Skills extension attaches to; tools stay low-level handlers.
      const mcp = new McpServer(SERVER_INFO, {
        instructions: runtime.disclosure.instructions(catalog, audience),
        cacheHints: {
          'tools/list': cache,
          'server/discover': cache,
          'resources/list': cache,
          'resources/templates/list': cache,
          'prompts/list': cache,
        },
      });
      mcp.server.registerCapabilities({ tools: { listChanged: true } });
      registerToolHandlers(mcp.server, runtime, audience);
      skills.attach(mcp, principal);
      return mcp.server;
    },
    {
      legacy: 'reject',
      ...(options.bus === undefined ? {} : { bus: options.bus }),
      maxRequestBodySize: config.server.body_limit_bytes,
      // Set, not left to the SDK's default; buildApp refuses streams past it (and per principal) itself.
      maxSubscriptions: config.server.max_listen_streams,
      onerror: (error) => runtime.log.debug({ err: error }, 'modern request rejected'),
    },
  );
  const audienceOf = (principal: Principal): Audience => ({
    era: 'modern',
    disclosure: config.skills.modern_disclosure,
    principal,
    // No sessions in this era: jobs belong to the principal that started them.
    scopeKey: `principal:${principal.id}`,
  });
  const listResults = new WeakMap<object, Map<string, string>>();
  const skillsResults = new WeakMap<object, Map<string, string>>();
  /** A JSON answer rendered once per (catalog, key) in `cache`; keys start with the principal's view key. */
  const renderedOnce = (
    cache: WeakMap<object, Map<string, string>>,
    key: string,
    render: () => string,
  ): string => {
    const catalog = runtime.catalogs.current;
    let perCatalog = cache.get(catalog);
    if (perCatalog === undefined) {
      perCatalog = new Map();
      cache.set(catalog, perCatalog);
    }
    const cached = perCatalog.get(key);
    if (cached !== undefined) return cached;
    const json = render();
    perCatalog.set(key, json);
    return json;
  };
  const serverMeta = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO };
  const serve: NodeMcpRequestHandler = toNodeHandler(handler, {
    onerror: (error) => runtime.log.error({ err: error }, 'modern request failed'),
  });
  return {
    async handle(req, res, body, principal) {
      (req as AuthenticatedRequest).auth = {
        token: '',
        clientId: principal.id,
        scopes: [],
        extra: { principal },
      };
      await serve(req, res, body);
    },
    listResult(principal) {
      return renderedOnce(listResults, viewKeyOf(principal), () => {
        const catalog = runtime.catalogs.current;
        // The modern list never depends on unlocks, so the view needs no store access.
        const allowed = runtime.policy.allowedSkills(principal, catalog);
        const tools = catalog.listTools({
          disclosure: audienceOf(principal).disclosure,
          unlocked: new Set(),
          allowed,
        });
        return JSON.stringify({
          tools,
          resultType: 'complete',
          ttlMs: config.tools.list_ttl_ms,
          cacheScope: runtime.disclosure.cacheScope(catalog, principal),
          _meta: serverMeta,
        });
      });
    },
    skillsListResult(principal, cursor) {
      const entries = skills.view(principal).entries;
      const start = pageStartOf(entries, cursor);
      if (start === undefined) return undefined;
      return renderedOnce(skillsResults, `${viewKeyOf(principal)}\0${start}`, () => {
        const page = skillsPage(entries, cursor);
        return JSON.stringify({
          skills: page.skills,
          ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
          ttlMs: config.tools.list_ttl_ms,
          cacheScope: runtime.disclosure.cacheScope(runtime.catalogs.current, principal),
          resultType: 'complete',
          _meta: serverMeta,
        });
      });
    },
    toolsChanged: () => handler.notify.toolsChanged(),
    resourcesChanged: () => handler.notify.resourcesChanged(),
    promptsChanged: () => handler.notify.promptsChanged(),
    close: () => handler.close(),
  };
}
