import type { IncomingMessage, ServerResponse } from 'node:http';
import { type NodeMcpRequestHandler, toNodeHandler } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { Disclosure } from '@skillgate/skills';
import type { FastifyBaseLogger } from 'fastify';
import { type Principal, viewKeyOf } from '../auth/accessPolicy.js';
import { renderOnce } from '../core/renderedJson.js';
import { createModernAnswers } from '../direct/modernAnswers.js';
import type { PlainRequest } from '../direct/plainRequest.js';
import type { JsonAnswer } from '../direct/resultWriter.js';
import type { Audience } from '../disclosure/audience.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { createMcpServer, type McpServerOptions, SERVER_INFO } from '../mcp/createMcpServer.js';
import { pageStartOf } from '../skillsExtension/skillsPage.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';
import type { LazyAbort } from '../tools/lazyAbort.js';
import type { ToolCallHandler } from '../tools/toolCallHandler.js';
import { createListenAudiences } from './listenAudiences.js';

/** Whether a change concerns an audience (asked once per principal with a listen stream open). */
type Affects = (audience: Audience) => boolean | Promise<boolean>;

/** The 2026-07-28 side of the endpoint: one handler for every modern request, plus its change bus. */
export interface ModernEndpoint {
  /** Serves one modern request (the body already parsed by Fastify). */
  handle(req: IncomingMessage, res: ServerResponse, body: unknown, principal: Principal): Promise<void>;
  /**
   * The whole JSON-RPC answer to a plain hot request, exactly as the SDK's path would write it, without the
   * SDK's per-request server (direct/modernAnswers.ts); undefined when the SDK's path must answer it.
   */
  answer(principal: Principal, request: PlainRequest, abort: LazyAbort): Promise<JsonAnswer | undefined>;
  /** Sends tools/list_changed on the open subscriptions/listen streams of the audiences it affects. */
  toolsChanged(affects: Affects): Promise<void>;
  /** Sends resources/list_changed (skill entries changed) on the streams of the audiences it affects. */
  resourcesChanged(affects: Affects): Promise<void>;
  /** Sends prompts/list_changed on the streams of the audiences it affects. */
  promptsChanged(affects: Affects): Promise<void>;
  close(): Promise<void>;
}

/** How the 2026-07-28 side behaves, from the `skills`, `tools` and `server` config sections. */
export interface ModernSettings {
  /** The disclosure mode of every 2026-07-28 request (`skills.modern_disclosure`). */
  readonly disclosure: Disclosure;
  /** The cache lifetime lists carry (`tools.list_ttl_ms`). */
  readonly listTtlMs: number;
  readonly bodyLimitBytes: number;
  /** Open subscriptions/listen streams at most (`server.max_listen_streams`). */
  readonly maxListenStreams: number;
}

/** Options of createModernEndpoint. */
export interface ModernEndpointOptions {
  /** What each request's MCP server is made of (the skills service serves the direct path too). */
  readonly servers: McpServerOptions & { readonly skills: SkillsService };
  /** Which cache scope a principal's lists carry. */
  readonly disclosure: Pick<DisclosurePolicy, 'cacheScope'>;
  readonly log: FastifyBaseLogger;
  readonly settings: ModernSettings;
}

// Fastify authenticated the request; the SDK hands `req.auth` to the server factory as authInfo.
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

/** The revision the modern side serves. */
const MODERN_REVISION = '2026-07-28';
/** The envelope of the requests the direct path renders once through the SDK's own path. */
const RENDER_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_REVISION,
  'io.modelcontextprotocol/clientCapabilities': {},
};

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
export function createModernEndpoint(options: ModernEndpointOptions): ModernEndpoint {
  const { servers, disclosure, log, settings } = options;
  const { catalogs, skills } = servers;
  // Each replica reloads its own catalog and tells its own streams: the bus is in-process, per principal.
  const audiences = createListenAudiences((error) => log.debug({ err: error }, 'listen notification failed'));
  const handler: McpHttpHandler = createMcpHandler(
    ({ authInfo }) => {
      const principal = principalOf(authInfo);
      const audience = audienceOf(principal);
      const cache = {
        ttlMs: settings.listTtlMs,
        cacheScope: disclosure.cacheScope(catalogs.current, principal),
      };
      return createMcpServer(servers, audience, { cache });
    },
    {
      legacy: 'reject',
      bus: audiences,
      maxRequestBodySize: settings.bodyLimitBytes,
      // Set, not left to the SDK's default; buildApp refuses streams past it (and per principal) itself.
      maxSubscriptions: settings.maxListenStreams,
      onerror: (error) => log.debug({ err: error }, 'modern request rejected'),
    },
  );
  const callHandlers = new WeakMap<Principal, ToolCallHandler>();
  const audienceOf = (principal: Principal): Audience => ({
    era: 'modern',
    disclosure: settings.disclosure,
    principal,
    // No sessions in this era: jobs belong to the principal that started them.
    scopeKey: `principal:${principal.id}`,
  });
  const authOf = (principal: Principal): AuthInfo => ({
    token: '',
    clientId: principal.id,
    scopes: [],
    extra: { principal },
  });
  const cacheHints = {
    public: renderOnce({ ttlMs: settings.listTtlMs, cacheScope: 'public' as const }),
    private: renderOnce({ ttlMs: settings.listTtlMs, cacheScope: 'private' as const }),
  };
  const direct = createModernAnswers({
    serverInfo: SERVER_INFO,
    catalog: () => catalogs.current,
    viewKey: viewKeyOf,
    // The SDK's own path, once per (catalog, view, request): exact by construction.
    renderOnce: async (principal, request) => {
      const params =
        request.method === 'skills/list' && request.params.cursor !== undefined
          ? { cursor: request.params.cursor }
          : {};
      const response = await handler.fetch(
        new Request('http://skillgate.internal/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN_REVISION,
            'mcp-method': request.method,
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: request.method,
            params: { ...params, _meta: RENDER_META },
          }),
        }),
        { authInfo: authOf(principal) },
      );
      return ((await response.json()) as { result?: unknown }).result;
    },
    toolCallHandler: (principal) => {
      // One handler per principal object, made at its first call: keyed by the object itself, so a handler
      // only ever serves the principal it was made for (a verified token that builds a new principal per
      // request simply makes a new one), and weakly, so a principal that goes takes its handler with it.
      let handler = callHandlers.get(principal);
      if (handler === undefined) {
        handler = servers.tools.callHandler(audienceOf(principal));
        callHandlers.set(principal, handler);
      }
      return handler;
    },
    skills,
    // One registered hint per scope: answers built from registered values are encoded once (direct/modernAnswers.ts).
    skillsCacheHint: (principal) => cacheHints[disclosure.cacheScope(catalogs.current, principal)],
  });
  // Only page boundaries of skills/list are rendered once (they bound what is kept); other cursors take the
  // SDK's path, which answers or refuses them.
  const answer = async (principal: Principal, request: PlainRequest, abort: LazyAbort) =>
    request.method === 'skills/list' &&
    pageStartOf(skills.view(principal).entries, request.params.cursor) === undefined
      ? undefined
      : direct(principal, request, abort);
  const serve: NodeMcpRequestHandler = toNodeHandler(handler, {
    onerror: (error) => log.error({ err: error }, 'modern request failed'),
  });
  return {
    async handle(req, res, body, principal) {
      (req as AuthenticatedRequest).auth = authOf(principal);
      // A listen stream opened here belongs to this principal (listenAudiences.ts).
      await audiences.runAs(principal, () => serve(req, res, body));
    },
    answer,
    toolsChanged: (affects) =>
      audiences.publishTo({ kind: 'tools_list_changed' }, (principal) => affects(audienceOf(principal))),
    resourcesChanged: (affects) =>
      audiences.publishTo({ kind: 'resources_list_changed' }, (principal) => affects(audienceOf(principal))),
    promptsChanged: (affects) =>
      audiences.publishTo({ kind: 'prompts_list_changed' }, (principal) => affects(audienceOf(principal))),
    close: () => handler.close(),
  };
}
