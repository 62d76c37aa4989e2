import type { Problem, Skill } from '../load/loadTypes.js';
import { globMatcher } from '../names/globMatcher.js';
import type { UpstreamSnapshot, UpstreamTool } from './upstreamTypes.js';

/** One `mcp__<upstream>__<tool>` entry of a skill's `allowed-tools`, the tool part a glob. */
interface UpstreamBinding {
  readonly upstream: string;
  /** The glob as written (`*` when only `mcp__<upstream>` was given). */
  readonly glob: string;
  readonly matches: (tool: string) => boolean;
}

/** An upstream tool a skill exposes. */
export interface BoundTool {
  readonly upstream: UpstreamSnapshot;
  readonly tool: UpstreamTool;
}

/** What a skill binds: its tools now, and the configured upstreams it names (even with no tools now). */
export interface SkillBindings {
  readonly tools: readonly BoundTool[];
  readonly upstreams: readonly UpstreamSnapshot[];
}

// Claude Code's naming: `mcp__<server>__<tool>`; an upstream id is a-z0-9- so the first `__` ends it.
const BINDING = /^mcp__(.+?)(?:__(.+))?$/;

/**
 * The upstream bindings in an `allowed-tools` value (space- or comma-separated, as the Agent Skills
 * specification and Claude Code write it). Entries that are not `mcp__…` are for the host and ignored here.
 */
function parseBindings(allowedTools: string | undefined): UpstreamBinding[] {
  if (allowedTools === undefined) return [];
  const bindings: UpstreamBinding[] = [];
  for (const entry of allowedTools.split(/[\s,]+/)) {
    const match = BINDING.exec(entry);
    if (match === null) continue;
    const upstream = match[1] ?? '';
    const glob = match[2] ?? '*';
    bindings.push({ upstream, glob, matches: globMatcher(glob) });
  }
  return bindings;
}

/**
 * The upstream tools a folder skill binds, in config order of the upstreams and then the upstream's tool
 * order. A binding selects from the snapshot's tools, which the upstream's own `tools` globs already
 * narrowed, so a binding can never widen what an upstream exposes. A binding to no configured upstream is
 * reported and ignored.
 */
export function bindSkillTools(
  skill: Skill,
  upstreams: ReadonlyMap<string, UpstreamSnapshot>,
  problems: Problem[],
): SkillBindings {
  const bindings = parseBindings(skill.allowedTools);
  if (bindings.length === 0) return { tools: [], upstreams: [] };
  const file = skill.skillMd.absolutePath;
  const byUpstream = new Map<string, UpstreamBinding[]>();
  for (const binding of bindings) {
    if (!upstreams.has(binding.upstream)) {
      problems.push({
        severity: 'warning',
        code: 'UPSTREAM_UNKNOWN',
        file,
        field: 'allowed-tools',
        skill: skill.name,
        reason: `mcp__${binding.upstream}__${binding.glob} names no configured upstream; ignored`,
      });
      continue;
    }
    const list = byUpstream.get(binding.upstream) ?? [];
    list.push(binding);
    byUpstream.set(binding.upstream, list);
  }
  const tools: BoundTool[] = [];
  const named: UpstreamSnapshot[] = [];
  for (const upstream of upstreams.values()) {
    const list = byUpstream.get(upstream.id);
    if (list === undefined) continue;
    named.push(upstream);
    for (const tool of upstream.tools) {
      if (list.some((b) => b.matches(tool.name))) tools.push({ upstream, tool });
    }
    // Only a connected upstream's list is complete enough to call a binding empty.
    if (upstream.state !== 'ready') continue;
    for (const binding of list) {
      if (upstream.tools.some((t) => binding.matches(t.name))) continue;
      problems.push({
        severity: 'warning',
        code: 'UPSTREAM_BINDING_EMPTY',
        file,
        field: 'allowed-tools',
        skill: skill.name,
        reason: `mcp__${upstream.id}__${binding.glob} matches no tool that upstream "${upstream.id}" exposes`,
      });
    }
  }
  return { tools, upstreams: named };
}
