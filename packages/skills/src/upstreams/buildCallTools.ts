import type { CallTool, ToolDefinition, ToolInputSchema } from '../catalog/catalogTypes.js';
import type { Skill } from '../load/loadTypes.js';
import { namePart } from '../names/namePart.js';
import type { NameRegistry } from '../names/nameRegistry.js';
import { shortHash } from '../names/shortHash.js';
import type { BoundTool } from './upstreamBindings.js';
import { bounded } from './upstreamSkill.js';
import type { UpstreamTool } from './upstreamTypes.js';

/** Longest upstream tool description served in a call tool's definition. */
const MAX_CALL_DESCRIPTION_CHARS = 1024;

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The upstream's annotations that MCP defines (the four hints and a title); anything else is dropped. */
function annotationsOf(tool: UpstreamTool): ToolDefinition['annotations'] | undefined {
  const source = tool.annotations;
  if (source === undefined) return undefined;
  const picked: Record<string, boolean | string> = {};
  if (typeof source.title === 'string') picked.title = source.title;
  for (const hint of HINTS) {
    const value = source[hint];
    if (typeof value === 'boolean') picked[hint] = value;
  }
  return Object.keys(picked).length === 0 ? undefined : picked;
}

/** The upstream's input schema as a tool input schema: MCP requires an object schema at the top. */
const inputSchemaOf = (tool: UpstreamTool): ToolInputSchema => ({ ...tool.inputSchema, type: 'object' });

/**
 * Names and defines the call tools of one skill (docs/upstreams.md): `skill_<s>_call_<tool>` through the
 * catalog's name registry, so shortening keeps the `_call_` marker and clashes are hashed and reported.
 * Two bound tools of one name (from two upstreams) are told apart as `<upstream>__<tool>`.
 */
export function buildCallTools(
  skill: Skill,
  sname: string,
  bound: readonly BoundTool[],
  registry: NameRegistry,
): CallTool[] {
  const counts = new Map<string, number>();
  for (const { tool } of bound) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  return bound.map(({ upstream, tool }) => {
    const shared = (counts.get(tool.name) ?? 0) > 1;
    const dispatchName = shared ? `${upstream.id}__${tool.name}` : tool.name;
    const sfile = namePart(shared ? `${upstream.id}_${tool.name}` : tool.name) || shortHash(dispatchName);
    const name = registry.claim({
      sname,
      role: 'call',
      sfile,
      identity: `${skill.name}\0call\0${upstream.id}\0${tool.name}`,
      owner: `call tool of ${upstream.id}'s tool "${tool.name}" in skill "${skill.name}"`,
      file: skill.skillMd.absolutePath,
      skill: skill.name,
    });
    const annotations = annotationsOf(tool);
    const definition: ToolDefinition = {
      name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      description: bounded(
        tool.description?.trim() || `Tool "${tool.name}" of the MCP server "${upstream.id}".`,
        MAX_CALL_DESCRIPTION_CHARS,
      ),
      inputSchema: inputSchemaOf(tool),
      ...(annotations === undefined ? {} : { annotations }),
    };
    return { upstream: upstream.id, tool: tool.name, dispatchName, definition };
  });
}
