import type { ToolSchemas } from './toolInputs.js';
import {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
} from './toolNames.js';
import type { Skill, ToolDefinition } from './types.js';

/** A skill tool with what it does, for the get_info listing. */
export interface ListedTool {
  readonly definition: ToolDefinition;
  readonly kind: 'run' | 'run_async' | 'read';
  readonly path: string;
}

/**
 * Hosts rename tools before the model sees them (`mcp__skillgate__…`, `mcp_skillgate_…`, `skillgate_…`,
 * `-` turned into `_`), so a literal name sends the model to a tool it cannot find (docs/clients.md).
 */
export const HOST_NAMES_NOTE =
  'Your host may show tool names with a prefix (such as mcp__skillgate__ or skillgate_) and with _ for -: use the tool whose name ends like the one given here.';

const withBody = (skill: Skill, rest: string): string =>
  skill.body === '' ? rest : `${skill.body}\n\n${rest}`;

/**
 * get_info text (namespaced/eager): the body, then every tool with its exact name, kind, file and schema,
 * so that a client that never refreshes its tool list can still call them.
 */
export function getInfoText(skill: Skill, tools: readonly ListedTool[]): string {
  if (tools.length === 0) return withBody(skill, `Skill "${skill.name}" has no files.`);
  const lines = tools.map(
    (t) => `- ${t.definition.name}: ${t.kind} ${t.path}; input ${JSON.stringify(t.definition.inputSchema)}`,
  );
  if (tools.some((t) => t.kind === 'run_async')) {
    lines.push(
      `Background jobs: poll ${ASYNC_STATUS_TOOL} {"job_id":"..."}, stop ${ASYNC_CANCEL_TOOL} {"job_id":"..."}.`,
    );
  }
  return withBody(skill, `## Tools of skill "${skill.name}"\n${HOST_NAMES_NOTE}\n${lines.join('\n')}`);
}

/**
 * get_info text in catalog mode: the body, then for every file the exact universal call that reads or runs
 * it, with the input schema, so that nothing needs to appear in the tool list (docs/disclosure.md).
 */
export function catalogInfoText(skill: Skill, schemas: ToolSchemas, asyncEnabled: boolean): string {
  if (skill.files.length === 0) return withBody(skill, `Skill "${skill.name}" has no files.`);
  const name = JSON.stringify(skill.name);
  const lines: string[] = [];
  for (const f of skill.files) {
    const path = JSON.stringify(f.path);
    lines.push(
      `- ${f.path} (${f.size} bytes): read ${READ_SKILL_FILE_TOOL} {"skill":${name},"path":${path}}`,
    );
    if (f.isScript) {
      lines.push(`  run ${RUN_SKILL_SCRIPT_TOOL} {"skill":${name},"path":${path},"args":[]}`);
    }
  }
  lines.push(`${READ_SKILL_FILE_TOOL} input ${JSON.stringify(schemas.readSkillFile)}`);
  if (skill.files.some((f) => f.isScript)) {
    lines.push(`${RUN_SKILL_SCRIPT_TOOL} input ${JSON.stringify(schemas.runSkillScript)}`);
    if (asyncEnabled) {
      lines.push(
        `With "async":true a run starts in the background: poll ${ASYNC_STATUS_TOOL} {"job_id":"..."}, stop ${ASYNC_CANCEL_TOOL} {"job_id":"..."}.`,
      );
    }
  }
  return withBody(
    skill,
    `## Files of skill "${skill.name}" (call with exactly these arguments)\n${HOST_NAMES_NOTE}\n${lines.join('\n')}`,
  );
}

/** load_skill text (universal): the body, then the file list and how to read or run a file. */
export function loadSkillText(skill: Skill, asyncEnabled: boolean): string {
  if (skill.files.length === 0) return withBody(skill, `Skill "${skill.name}" has no files.`);
  const lines = skill.files.map((f) => `- ${f.path} (${f.size} bytes${f.isScript ? ', script' : ''})`);
  const name = JSON.stringify(skill.name);
  lines.push(`Read a file with ${READ_SKILL_FILE_TOOL} {"skill":${name},"path":"<path>"}.`);
  if (skill.files.some((f) => f.isScript)) {
    const async = asyncEnabled ? ' Add "async":true to run it in the background.' : '';
    lines.push(
      `Run a script with ${RUN_SKILL_SCRIPT_TOOL} {"skill":${name},"path":"<path>","args":[]}.${async}`,
    );
  }
  return withBody(skill, `## Files of skill "${skill.name}"\n${lines.join('\n')}`);
}
