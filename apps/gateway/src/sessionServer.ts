import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { renderSummary } from '@skillgate/skills';
import { GatewayError } from './gatewayError.js';
import type { GatewayRuntime, SessionContext } from './runtime.js';
import { callTool } from './toolCalls.js';

/** Name and version the gateway announces at initialize. */
export const SERVER_INFO = { name: 'skillgate', version: '0.1.0' } as const;

// Instructions are the same for every session of one principal and mode: render them once per catalog,
// so that opening a session neither re-renders the summary nor holds its own copy of it.
const instructionsCache = new WeakMap<object, Map<string, string>>();

/** The initialize `instructions`: how disclosure works here, then the L1 summary of the allowed skills. */
export function sessionInstructions(runtime: GatewayRuntime, ctx: SessionContext): string {
  const catalog = runtime.catalogs.current;
  let perCatalog = instructionsCache.get(catalog);
  if (perCatalog === undefined) {
    perCatalog = new Map();
    instructionsCache.set(catalog, perCatalog);
  }
  const key = `${ctx.record.disclosure}\0${ctx.principal.name}`;
  const cached = perCatalog.get(key);
  if (cached !== undefined) return cached;
  const allowed = runtime.policy.allowedSkills(ctx.principal, catalog);
  const entries = [...catalog.skills.values()].filter(
    (e) => allowed === undefined || allowed.has(e.skill.name),
  );
  const how =
    ctx.record.disclosure === 'universal'
      ? 'Call load_skill with a skill name to read its instructions; then use list_skill_files, read_skill_file and run_skill_script.'
      : ctx.record.disclosure === 'eager'
        ? "Every skill tool is listed. Call a skill_<name>_get_info tool to read that skill's instructions before using its tools."
        : "Each skill starts as one skill_<name>_get_info tool. Calling it returns the skill's instructions and unlocks its run/read tools for this session.";
  const text = `skillgate serves Agent Skills. ${how}\n\n${renderSummary(entries, 'xml', { tools: ctx.record.disclosure !== 'universal' })}`;
  perCatalog.set(key, text);
  return text;
}

/**
 * One low-level MCP Server per session. The low-level Server (not McpServer) lets tools/list come from the
 * shared catalog filtered by the session's view, and lets the list_changed notification ride the
 * response stream of the get_info call that caused it (DESIGN §9).
 */
export function createSessionServer(runtime: GatewayRuntime, ctx: SessionContext): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: true } },
    instructions: sessionInstructions(runtime, ctx),
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const catalog = runtime.catalogs.current;
    const tools = catalog.listTools({
      disclosure: ctx.record.disclosure as 'namespaced',
      unlocked: await runtime.store.unlocked(ctx.record.scopeKey),
      allowed: runtime.policy.allowedSkills(ctx.principal, catalog),
    });
    // The catalog's definitions are frozen, shared and already in wire shape: no copy, no conversion.
    return { tools: tools as Tool[] };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const started = performance.now();
    const end = runtime.inFlight.begin();
    const name = request.params.name;
    let kind = 'unknown';
    let outcome = 'error';
    try {
      const done = await callTool(runtime, ctx, name, request.params.arguments, {
        signal: extra.signal,
        notifyToolsChanged: () => extra.sendNotification({ method: 'notifications/tools/list_changed' }),
      });
      kind = done.kind;
      outcome = done.outcome;
      return done.result;
    } catch (error) {
      if (error instanceof GatewayError) {
        outcome = error.code === 'UNKNOWN_TOOL' ? 'unknown_tool' : 'invalid_arguments';
        throw new McpError(error.rpcCode, error.message, { reason: error.code });
      }
      runtime.log.error({ err: error, tool: name, session: ctx.record.id }, 'tool call failed');
      throw new McpError(-32603, 'Internal error while calling the tool');
    } finally {
      end();
      const duration_ms = Math.round(performance.now() - started);
      runtime.metrics.inc('skillgate_tool_calls_total', { kind, outcome });
      runtime.log.info(
        {
          audit: 'tool_call',
          principal: ctx.principal.name,
          session: ctx.record.id,
          tool: name,
          kind,
          outcome,
          duration_ms,
          ...(runtime.config.logging.log_arguments ? { arguments: request.params.arguments } : {}),
        },
        'tool call',
      );
    }
  });

  return server;
}
