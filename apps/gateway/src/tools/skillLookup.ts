import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CatalogSkill, SkillFile } from '@skillgate/skills';
import type { DisclosurePolicy } from '../disclosure/disclosurePolicy.js';
import { GatewayError } from '../errors/gatewayError.js';
import type { ToolCall } from './toolCall.js';
import { toolError } from './toolResults.js';

/** What the kinds that name a skill in their arguments ask the disclosure rule. */
export type SkillLookup = Pick<DisclosurePolicy, 'usableSkill' | 'usableSkillNames'>;

/** A skill the caller may use, named in a call's arguments, or undefined. */
export function usableSkill(lookup: SkillLookup, call: ToolCall, skill: string): CatalogSkill | undefined {
  return lookup.usableSkill(call.catalog, call.audience.principal, skill);
}

/** The tool error of a skill the caller may not use (or that does not exist), naming those it may. */
export function unknownSkill(lookup: SkillLookup, call: ToolCall, skill: string): CallToolResult {
  const names = lookup.usableSkillNames(call.catalog, call.audience.principal);
  return toolError(`Unknown skill "${skill}". Available skills: ${names.join(', ') || '(none)'}.`);
}

/** Looks a file up by its exact catalog path, never by joining paths, so `..` tricks find nothing. */
export function findFile(
  lookup: SkillLookup,
  call: ToolCall,
  skill: string,
  path: string,
): { file: SkillFile } | { error: CallToolResult } {
  const entry = usableSkill(lookup, call, skill);
  if (entry === undefined) return { error: unknownSkill(lookup, call, skill) };
  const names = entry.toolNames.get(path);
  const target = names === undefined ? undefined : call.catalog.resolve(names.read);
  if (target === undefined || !('file' in target)) {
    return { error: toolError(`Skill "${skill}" has no file "${path}". Its instructions list its files.`) };
  }
  return { file: target.file };
}

/** A skill of the call's catalog snapshot, or UNKNOWN_TOOL (it was resolved from that same snapshot). */
export function requireSkill(call: Pick<ToolCall, 'catalog'>, skill: string): CatalogSkill {
  const entry = call.catalog.skills.get(skill);
  if (entry === undefined) throw new GatewayError('UNKNOWN_TOOL', `Unknown skill: ${skill}`);
  return entry;
}
