import { McpServer, type Server } from '@modelcontextprotocol/server';
import type { Audience } from '../disclosure/disclosurePolicy.js';
import type { GatewayRuntime } from '../runtime.js';
import { skillsServiceOf } from '../skillsExtension/skillsServiceOf.js';
import { registerToolHandlers } from '../tools/toolHandlers.js';
import { createRelistWatch } from './relistWatch.js';

/** Name and version the gateway announces (initialize, server/discover). */
export const SERVER_INFO = { name: 'skillgate', version: '0.1.0' } as const;

/**
 * One low-level MCP Server per 2025-era session. Low-level tool handlers (not McpServer.registerTool) let
 * tools/list come from the shared catalog filtered by the disclosure policy, and let list_changed ride the
 * response stream of the get_info call that caused it (docs/protocol-eras.md); the McpServer around it
 * only carries the Skills extension (docs/skills-extension.md).
 */
export function createSessionServer(runtime: GatewayRuntime, audience: Audience): Server {
  const mcp = new McpServer(SERVER_INFO, {
    instructions: runtime.disclosure.instructions(runtime.catalogs.current, audience),
  });
  mcp.server.registerCapabilities({ tools: { listChanged: true } });
  const relist = createRelistWatch({
    waitMs: runtime.config.sessions.relist_wait_ms,
    graceMs: runtime.config.sessions.relist_grace_ms,
    onOutcome: (outcome, heldMs) => {
      runtime.metrics.inc('skillgate_get_info_holds_total', { outcome });
      if (outcome === 'timeout' && relist.relists === false) {
        runtime.log.info(
          { session: audience.sessionId, held_ms: heldMs },
          'session did not re-list after list_changed: its get_info results are no longer held',
        );
      }
    },
  });
  registerToolHandlers(mcp.server, runtime, audience, { relist });
  skillsServiceOf(runtime).attach(mcp, audience.principal);
  return mcp.server;
}
