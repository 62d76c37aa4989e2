import { McpServer, type Server } from '@modelcontextprotocol/server';
import type { CatalogSource } from '../core/catalogSource.js';
import type { Audience } from '../disclosure/audience.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';
import type { RelistWatch } from '../tools/relistWatch.js';
import type { ToolHandlers } from '../tools/toolHandlers.js';

/** Name and version the gateway announces (initialize, server/discover). */
export const SERVER_INFO = { name: 'skillgate', version: '0.1.0' } as const;

/**
 * Options of createMcpServer: what every MCP server of the gateway is made of, built once by the composition
 * root and shared by every server.
 */
export interface McpServerOptions {
  readonly catalogs: Pick<CatalogSource, 'current'>;
  /** The initialize instructions of an audience. */
  readonly disclosure: Pick<DisclosurePolicy, 'instructions'>;
  readonly tools: ToolHandlers;
  /** The Skills extension and prompts. */
  readonly skills: Pick<SkillsService, 'attach'>;
}

/** The per-audience list options of createMcpServer (its third argument). */
export interface McpListOptions {
  /** 2026-07-28 cache fields (`ttlMs`, `cacheScope`) of the list results; none on 2025-era sessions. */
  readonly cache?: { readonly ttlMs: number; readonly cacheScope: 'public' | 'private' };
  /** A 2025-era session's wait for the client's re-list after list_changed (tools/relistWatch.ts). */
  readonly relist?: RelistWatch;
}

/**
 * The MCP server of one audience, the same for both eras: one per 2025-era session, one per 2026-07-28
 * request. Low-level tool handlers (not McpServer.registerTool) let tools/list come from the shared catalog
 * filtered by the disclosure policy, and let list_changed ride the response stream of the get_info call
 * that caused it (docs/protocol-eras.md); the McpServer around it only carries the Skills extension
 * (docs/skills-extension.md).
 */
export function createMcpServer(
  parts: McpServerOptions,
  audience: Audience,
  options: McpListOptions = {},
): Server {
  const { cache, relist } = options;
  const mcp = new McpServer(SERVER_INFO, {
    instructions: parts.disclosure.instructions(parts.catalogs.current, audience),
    ...(cache === undefined
      ? {}
      : {
          cacheHints: {
            'tools/list': cache,
            'server/discover': cache,
            'resources/list': cache,
            'resources/templates/list': cache,
            'prompts/list': cache,
          },
        }),
  });
  mcp.server.registerCapabilities({ tools: { listChanged: true } });
  parts.tools.register(mcp.server, audience, relist === undefined ? {} : { relist });
  parts.skills.attach(mcp, audience.principal);
  return mcp.server;
}
