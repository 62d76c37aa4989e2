import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import type { InputOf, ToolKind, ToolTarget } from '@skillgate/skills';
import type { ToolCall } from './toolCall.js';

/**
 * The handler of one tool kind: the call, its target and its arguments, validated with the kind's contract. A
 * kind that needs the caller's connected account may answer input_required instead (tools/callCredentials.ts).
 */
export type KindHandler<K extends ToolKind> = (
  call: ToolCall,
  target: ToolTarget & { readonly kind: K },
  input: InputOf<K>,
) => Promise<CallToolResult | InputRequiredResult>;

/** One handler per tool kind. */
export type KindHandlers = { readonly [K in ToolKind]: KindHandler<K> };
