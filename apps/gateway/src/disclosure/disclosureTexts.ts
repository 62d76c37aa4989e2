import {
  CALL_SKILL_TOOL,
  type CatalogSkill,
  type Disclosure,
  HOST_NAMES_NOTE,
  renderSummary,
} from '@skillgate/skills';

// How each mode works, as the first sentence of the server instructions.
const HOW: Readonly<Record<Disclosure, string>> = {
  namespaced:
    "Each skill starts as one tool, skill_<name>_get_info: call it to read the skill's instructions; that unlocks its run/read tools for this session.",
  eager:
    "Every skill tool is listed. Call a skill_<name>_get_info tool to read that skill's instructions before using its tools.",
  universal:
    'Call load_skill with a skill name to read its instructions; then use list_skill_files, read_skill_file and run_skill_script.',
  catalog:
    "Call a skill_<name>_get_info tool to read that skill's instructions; they name the exact read_skill_file and run_skill_script calls for each of its files.",
  search:
    'Find the skills a task needs with search_skills { query } (words of the task; "*" lists them all, page by page), then call load_skill { name } with a result\'s skill: its instructions name the exact read_skill_file and run_skill_script calls for each of its files.',
};

/** The get_info (or load_skill) text of a skill in a mode: each mode's text names the calls it lists. */
export function infoTextOf(entry: CatalogSkill, mode: Disclosure): string {
  switch (mode) {
    case 'universal':
      return entry.loadSkillText;
    case 'catalog':
    case 'search':
      return entry.catalogInfoText;
    default:
      return entry.getInfoText;
  }
}

/**
 * The server instructions of a mode over the skills a principal may use: how disclosure works here, then the
 * summary of those skills in what is left of `maxInstructionsChars`.
 */
export function instructionsText(
  mode: Disclosure,
  entries: readonly CatalogSkill[],
  maxInstructionsChars: number,
): string {
  // Hosts keep only the first ~2 KB (docs/clients.md): how to use the gateway comes first, then the
  // summary in what is left (every name, then descriptions as they fit).
  // Where tools of other MCP servers go through the dispatcher, say so once (docs/upstreams.md).
  const dispatched =
    (mode === 'catalog' || mode === 'universal' || mode === 'search') && entries.some((e) => e.usesUpstreams)
      ? ` Tools of other MCP servers that a skill uses are called with ${CALL_SKILL_TOOL}, exactly as its instructions print.`
      : '';
  const how = `skillgate serves Agent Skills. ${HOW[mode]}${dispatched}\n${HOST_NAMES_NOTE}\n\n`;
  const maxChars = Math.max(0, maxInstructionsChars - how.length);
  // Search mode never lists the skills: how many there are, and the pinned ones (within the budget).
  if (mode === 'search') return `${how}${searchSummary(entries, maxChars)}`;
  const summary = renderSummary(entries, 'xml', { tools: mode !== 'universal', maxChars });
  return `${how}${summary}`;
}

/** What search mode's instructions say of the skills: how many, and the pinned ones with their descriptions. */
function searchSummary(entries: readonly CatalogSkill[], maxChars: number): string {
  const count = `${entries.length} skill${entries.length === 1 ? ' is' : 's are'} available to you.`;
  const pinned = entries.filter((e) => e.pinned);
  if (pinned.length === 0) return count;
  const lines = [`${count} Pinned (listed as tools):`];
  let used = lines[0]?.length ?? 0;
  for (const e of pinned) {
    const line = `- ${e.skill.name}: ${e.skill.description.replace(/\s+/g, ' ')}`;
    const short = `- ${e.skill.name}`;
    const next = used + 1 + line.length <= maxChars ? line : short;
    if (used + 1 + next.length > maxChars) break;
    lines.push(next);
    used += 1 + next.length;
  }
  return lines.join('\n');
}
