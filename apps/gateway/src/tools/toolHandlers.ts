import type { Server, Tool } from '@modelcontextprotocol/server';
import type { CatalogSource } from '../core/catalogSource.js';
import type { Audience } from '../disclosure/audience.js';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import type { RelistWatch } from './relistWatch.js';
import {
  createToolCallHandler,
  envelopeElicitsUrl,
  type ToolCallHandler,
  type ToolCallHandlerOptions,
} from './toolCallHandler.js';

/** Options of ToolHandlers.register. */
export interface RegisterToolsOptions {
  /** A 2025-era session's watch: holds a get_info result that unlocked tools until the session re-lists. */
  readonly relist?: RelistWatch;
}

/** Options of createToolHandlers: the call handler's steps, and what tools/list reads. */
export interface ToolHandlersOptions extends ToolCallHandlerOptions {
  readonly catalogs: Pick<CatalogSource, 'current'>;
  /** Each audience's list. */
  readonly disclosure: Pick<DisclosurePolicy, 'listTools'>;
}

/** tools/list + tools/call of the gateway, the same way for both eras. */
export interface ToolHandlers {
  /**
   * Registers tools/list and tools/call on a server for one audience: the list and every call go through the
   * disclosure policy; metrics and the audit log are written once, in the call handler.
   */
  register(server: Server, audience: Audience, options?: RegisterToolsOptions): void;
  /** The tools/call handler of one audience: the SDK servers register it, the direct path calls it. */
  callHandler(audience: Audience, relist?: RelistWatch): ToolCallHandler;
  /** The tools/list handler of one audience: the SDK servers register it, a session's direct path calls it. */
  listHandler(audience: Audience, relist?: RelistWatch): ToolListHandler;
}

/** Creates the gateway's tool handlers over its catalog, disclosure policy and tool kinds. */
export function createToolHandlers(options: ToolHandlersOptions): ToolHandlers {
  return {
    register(server, audience, { relist } = {}) {
      server.setRequestHandler('tools/list', createToolListHandler(options, audience, relist));
      const callTool = createToolCallHandler(options, audience, relist);
      server.setRequestHandler('tools/call', (request, ctx) =>
        callTool(request, {
          signal: ctx.mcpReq.signal,
          notify: (notification) => ctx.mcpReq.notify(notification),
          // 2026-07-28: the SDK lifts the envelope out of `_meta`, and keeps a retry's state for the handler.
          ...(ctx.mcpReq.envelope === undefined
            ? {}
            : { elicitsUrl: envelopeElicitsUrl(ctx.mcpReq.envelope as Readonly<Record<string, unknown>>) }),
          ...requestStateOf(ctx.mcpReq.requestState<unknown>()),
        }),
      );
    },
    callHandler: (audience, relist) => createToolCallHandler(options, audience, relist),
    listHandler: (audience, relist) => createToolListHandler(options, audience, relist),
  };
}

/** A retry's requestState as the handler checks it: the raw string (no verify hook is configured on the SDK). */
const requestStateOf = (state: unknown): { requestState?: string } =>
  typeof state === 'string' ? { requestState: state } : {};

/** A tools/list handler for one audience (without the 2026-07-28 cache fields). */
export type ToolListHandler = () => Promise<{ tools: Tool[] }>;

/** The tools/list handler of one audience; a 2025-era session's list also tells its re-list watch. */
function createToolListHandler(
  options: ToolHandlersOptions,
  audience: Audience,
  relist?: RelistWatch,
): ToolListHandler {
  return async () => {
    const generation = relist?.generation() ?? 0;
    const tools = await options.disclosure.listTools(options.catalogs.current, audience);
    relist?.listed(generation);
    // The catalog's definitions are frozen, shared and already in wire shape: no copy, no conversion.
    return { tools: tools as Tool[] };
  };
}
