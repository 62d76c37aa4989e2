import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { InputOf, ToolKind, ToolTarget } from '@skillgate/skills';
import { type FileServices, fileCalls } from './fileCalls.js';
import { type InfoServices, infoCalls } from './infoCalls.js';
import type { KindHandler, KindHandlers } from './kindHandler.js';
import { type ScriptServices, scriptCalls } from './scriptCalls.js';
import { type SearchServices, searchCalls } from './searchCalls.js';
import type { ToolCall } from './toolCall.js';
import { type UpstreamServices, upstreamCalls } from './upstreamCalls.js';

/** The services of each family of kinds: each family is given only its own. */
export interface KindServices {
  /** get_info, load_skill. */
  readonly info: InfoServices;
  /** read, list_skill_files, read_skill_file. */
  readonly files: FileServices;
  /** run, run_async, get_async_status, cancel_async, run_skill_script. */
  readonly scripts: ScriptServices;
  /** call, call_skill_tool. */
  readonly upstreams: UpstreamServices;
  /** search_skills. */
  readonly search: SearchServices;
}

/** The kind -> handler table, each family built over its own services. */
export function createKindHandlers(services: KindServices): KindHandlers {
  return {
    ...infoCalls(services.info),
    ...fileCalls(services.files),
    ...scriptCalls(services.scripts),
    ...upstreamCalls(services.upstreams),
    ...searchCalls(services.search),
  };
}

/** Runs a resolved call with its kind's handler. */
export function dispatchByKind<K extends ToolKind>(
  kinds: KindHandlers,
  call: ToolCall,
  target: ToolTarget & { readonly kind: K },
  input: InputOf<K>,
): Promise<CallToolResult | InputRequiredResult> {
  const handler = kinds[target.kind] as KindHandler<K>;
  return handler(call, target, input);
}
