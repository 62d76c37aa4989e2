import type { CallTool, ToolDefinition } from '../catalog/catalogTypes.js';
import type { ToolInputSchema } from '../catalog/toolInputs.js';
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
 *
 * A tool's name is the upstream's to choose, so it can imitate another upstream's: a third-party upstream
 * listing `good__deploy` must never stand for `good`'s `deploy`. The dispatcher therefore never parses an
 * upstream out of a name: call_skill_tool takes the upstream as its own argument, required when tools of
 * one name come from two upstreams (`needsUpstream`). Namespaced names of such tools (and of tools whose
 * sanitized names meet) are qualified as `<upstream>_<tool>` and claimed first, so an unqualified name
 * that imitates a qualified one loses the clash (hashed and reported), whatever the binding order.
 */
export function buildCallTools(
  skill: Skill,
  sname: string,
  bound: readonly BoundTool[],
  registry: NameRegistry,
): CallTool[] {
  const parts = bound.map(({ tool }) => namePart(tool.name) || shortHash(tool.name));
  const byName = upstreamsBy(bound.map(({ upstream, tool }) => [tool.name, upstream.id]));
  const byPart = upstreamsBy(bound.map(({ upstream }, i) => [parts[i] ?? '', upstream.id]));
  const qualified = bound.map(
    ({ tool }, i) => (byName.get(tool.name)?.size ?? 0) > 1 || (byPart.get(parts[i] ?? '')?.size ?? 0) > 1,
  );
  const names = new Map<number, string>();
  const claim = (i: number): void => {
    const entry = bound[i];
    if (entry === undefined) return;
    const { upstream, tool } = entry;
    names.set(
      i,
      registry.claim({
        sname,
        role: 'call',
        sfile: qualified[i] === true ? `${upstream.id}_${parts[i] ?? ''}` : (parts[i] ?? ''),
        identity: `${skill.name}\0call\0${upstream.id}\0${tool.name}`,
        owner: `call tool of ${upstream.id}'s tool "${tool.name}" in skill "${skill.name}"`,
        file: skill.skillMd.absolutePath,
        skill: skill.name,
      }),
    );
  };
  // Qualified names first: they decide a clash with an unqualified name that imitates them.
  for (let i = 0; i < bound.length; i++) if (qualified[i] === true) claim(i);
  for (let i = 0; i < bound.length; i++) if (qualified[i] !== true) claim(i);
  return bound.map(({ upstream, tool }, i) => {
    const annotations = annotationsOf(tool);
    const definition: ToolDefinition = {
      name: names.get(i) ?? '',
      ...(tool.title === undefined ? {} : { title: tool.title }),
      description: bounded(
        tool.description?.trim() || `Tool "${tool.name}" of the MCP server "${upstream.id}".`,
        MAX_CALL_DESCRIPTION_CHARS,
      ),
      inputSchema: inputSchemaOf(tool),
      ...(annotations === undefined ? {} : { annotations }),
    };
    const needsUpstream = (byName.get(tool.name)?.size ?? 0) > 1;
    return { upstream: upstream.id, tool: tool.name, needsUpstream, definition };
  });
}

/** Which upstreams each key comes from. */
function upstreamsBy(pairs: ReadonlyArray<readonly [string, string]>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [key, upstream] of pairs) {
    const set = out.get(key) ?? new Set<string>();
    set.add(upstream);
    out.set(key, set);
  }
  return out;
}
