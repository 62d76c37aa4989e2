import type { CallToolResult } from '@modelcontextprotocol/server';
import { INPUT_OF_KIND, type InputOf, type ToolKind, type ToolTarget } from '@skillgate/skills';
import type { SessionStore } from '@skillgate/state';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import { parseArguments } from './parseArguments.js';
import type { ToolCall } from './toolCall.js';
import { toolError } from './toolResults.js';

/** What the resolve step uses. */
export interface ResolveServices {
  /** Whether the caller may call the target. */
  readonly disclosure: Pick<DisclosurePolicy, 'decideCall'>;
  /** Where a used tool's skill becomes the most recently used. */
  readonly unlocks: Pick<SessionStore, 'use'>;
}

/** A call the caller may make, its arguments validated; or a locked tool, answered here. */
export type ResolvedCall =
  | { readonly kind: 'callable'; readonly target: ToolTarget; readonly input: InputOf<ToolKind> }
  | { readonly kind: 'locked'; readonly result: CallToolResult };

/**
 * The disclosure policy decides whether the caller may call the call's target (resolved once, ToolCall);
 * the arguments are validated once with its kind's input contract (INPUT_OF_KIND, the same map the
 * advertised schemas come from). Unknown tools and bad arguments throw GatewayError (JSON-RPC errors); a
 * locked tool is a tool result naming the get_info tool that unlocks it.
 */
export async function resolveToolCall(services: ResolveServices, call: ToolCall): Promise<ResolvedCall> {
  const { name, catalog, audience } = call;
  const decision = await services.disclosure.decideCall(catalog, audience, call.target);
  if (decision.kind === 'unknown') throw new GatewayError('UNKNOWN_TOOL', `Unknown tool: ${name}`);
  call.kind = decision.target.kind;
  if (decision.kind === 'locked') {
    const { skill } = decision;
    return {
      kind: 'locked',
      result: toolError(
        `Tool ${name} belongs to skill "${skill.skill.name}", which is locked in this session. ` +
          `Call ${skill.getInfoTool.name} first to read its instructions and unlock its tools.`,
      ),
    };
  }
  const { target } = decision;
  if (decision.used !== undefined) await services.unlocks.use(audience.scopeKey, decision.used);
  const validator = catalog.inputs.validators[INPUT_OF_KIND[target.kind]];
  const input = parseArguments<InputOf<typeof target.kind>>(validator, name, call.args);
  return { kind: 'callable', target, input };
}
