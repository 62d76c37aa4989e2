import type { Skill } from '../load/loadTypes.js';
import {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  CALL_SKILL_TOOL,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
} from '../names/toolNames.js';
import type { UpstreamSnapshot } from '../upstreams/upstreamTypes.js';
import type { CallTool, ToolDefinition } from './catalogTypes.js';
import { INPUT_OF_KIND } from './inputOfKind.js';
import type { ToolSchemas } from './toolInputs.js';

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

/** What a skill exposes of upstream MCP servers, for its texts. */
export interface UpstreamPart {
  readonly calls: readonly CallTool[];
  /** The upstreams the skill uses, with their state when the catalog was built. */
  readonly upstreams: readonly UpstreamSnapshot[];
}

const NO_UPSTREAMS: UpstreamPart = { calls: [], upstreams: [] };
const SUMMARY_CHARS = 200;

/** The footer of a fetched skill: which source and commit the agent is reading (docs/sources.md). */
const originFooter = (skill: Skill): string =>
  skill.origin === undefined ? '' : `\n\nSource: "${skill.origin.source}" at ${skill.origin.commit}`;

const withBody = (skill: Skill, rest: string): string =>
  (skill.body === '' ? rest : `${skill.body}\n\n${rest}`) + originFooter(skill);

const oneLine = (text: string): string => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= SUMMARY_CHARS ? line : `${line.slice(0, SUMMARY_CHARS - 1)}…`;
};

/** One line per upstream that is not ready: a model must learn why its calls will fail before it tries. */
function stateLines(part: UpstreamPart): string[] {
  const lines: string[] = [];
  for (const u of part.upstreams) {
    if (u.state === 'ready') continue;
    const why = u.lastError === undefined ? '' : `: ${oneLine(u.lastError)}`;
    lines.push(
      u.state === 'down'
        ? `Upstream "${u.id}" is unavailable${why}. Its tools answer UPSTREAM_UNAVAILABLE until it is back (it is retried).`
        : `Upstream "${u.id}" is still connecting${why}. ${u.tools.length === 0 ? 'Its tools are not known yet.' : 'Its tools may answer UPSTREAM_UNAVAILABLE until it is connected.'}`,
    );
  }
  return lines;
}

/** The call tools section of a namespaced/eager get_info text: exact names and input schemas. */
function namedCallsSection(skill: Skill, part: UpstreamPart): string | undefined {
  const state = stateLines(part);
  if (part.calls.length === 0 && state.length === 0) return undefined;
  const lines = part.calls.map(
    (c) =>
      `- ${c.definition.name}: tool "${c.tool}" of upstream "${c.upstream}": ${oneLine(c.definition.description)}; input ${JSON.stringify(c.definition.inputSchema)}`,
  );
  return [
    `## Upstream tools of skill "${skill.name}" (your host may show these names with a prefix)`,
    ...state,
    ...lines,
  ].join('\n');
}

/** The call tools section of a catalog/universal text: the exact call_skill_tool call of each tool. */
function dispatchedCallsSection(skill: Skill, part: UpstreamPart): string | undefined {
  const state = stateLines(part);
  if (part.calls.length === 0 && state.length === 0) return undefined;
  const name = JSON.stringify(skill.name);
  const lines = part.calls.map(
    (c) =>
      `- ${c.tool} (upstream "${c.upstream}"): ${oneLine(c.definition.description)}\n` +
      `  call ${CALL_SKILL_TOOL} {"skill":${name},${c.needsUpstream ? `"upstream":${JSON.stringify(c.upstream)},` : ''}"tool":${JSON.stringify(c.tool)},"arguments":{...}}; arguments ${JSON.stringify(c.definition.inputSchema)}`,
  );
  return [`## Upstream tools of skill "${skill.name}" (call exactly as shown)`, ...state, ...lines].join(
    '\n',
  );
}

/** Joins the sections that exist after the body; a skill with neither files nor upstream tools says so. */
function compose(
  skill: Skill,
  files: string | undefined,
  calls: string | undefined,
  part: UpstreamPart,
): string {
  const sections = [files, calls].filter((s): s is string => s !== undefined);
  if (sections.length > 0) return withBody(skill, sections.join('\n\n'));
  const none =
    part.upstreams.length === 0
      ? `Skill "${skill.name}" has no files.`
      : `Skill "${skill.name}" has no files and its upstreams expose no tools right now.`;
  return withBody(skill, none);
}

/**
 * get_info text (namespaced/eager): the body, then every tool with its exact name, kind, file and schema,
 * so that a client that never refreshes its tool list can still call them.
 */
export function getInfoText(
  skill: Skill,
  tools: readonly ListedTool[],
  part: UpstreamPart = NO_UPSTREAMS,
): string {
  const calls = namedCallsSection(skill, part);
  if (tools.length === 0) return compose(skill, undefined, calls, part);
  const lines = tools.map(
    (t) => `- ${t.definition.name}: ${t.kind} ${t.path}; input ${JSON.stringify(t.definition.inputSchema)}`,
  );
  if (tools.some((t) => t.kind === 'run_async')) {
    lines.push(
      `Background jobs: poll ${ASYNC_STATUS_TOOL} {"job_id":"..."}, stop ${ASYNC_CANCEL_TOOL} {"job_id":"..."}.`,
    );
  }
  return compose(
    skill,
    `## Tools of skill "${skill.name}"\n${HOST_NAMES_NOTE}\n${lines.join('\n')}`,
    calls,
    part,
  );
}

/**
 * get_info text in catalog mode: the body, then for every file the exact universal call that reads or runs
 * it, with the input schema, so that nothing needs to appear in the tool list (docs/disclosure.md).
 */
export function catalogInfoText(
  skill: Skill,
  schemas: ToolSchemas,
  asyncEnabled: boolean,
  part: UpstreamPart = NO_UPSTREAMS,
): string {
  const calls = dispatchedCallsSection(skill, part);
  if (skill.files.length === 0) return compose(skill, undefined, calls, part);
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
  lines.push(`${READ_SKILL_FILE_TOOL} input ${JSON.stringify(schemas[INPUT_OF_KIND.read_skill_file])}`);
  if (skill.files.some((f) => f.isScript)) {
    lines.push(`${RUN_SKILL_SCRIPT_TOOL} input ${JSON.stringify(schemas[INPUT_OF_KIND.run_skill_script])}`);
    if (asyncEnabled) {
      lines.push(
        `With "async":true a run starts in the background: poll ${ASYNC_STATUS_TOOL} {"job_id":"..."}, stop ${ASYNC_CANCEL_TOOL} {"job_id":"..."}.`,
      );
    }
  }
  return compose(
    skill,
    `## Files of skill "${skill.name}" (call with exactly these arguments)\n${HOST_NAMES_NOTE}\n${lines.join('\n')}`,
    calls,
    part,
  );
}

/** load_skill text (universal): the body, then the file list and how to read or run a file. */
export function loadSkillText(
  skill: Skill,
  asyncEnabled: boolean,
  part: UpstreamPart = NO_UPSTREAMS,
): string {
  const calls = dispatchedCallsSection(skill, part);
  if (skill.files.length === 0) return compose(skill, undefined, calls, part);
  const lines = skill.files.map((f) => `- ${f.path} (${f.size} bytes${f.isScript ? ', script' : ''})`);
  const name = JSON.stringify(skill.name);
  lines.push(`Read a file with ${READ_SKILL_FILE_TOOL} {"skill":${name},"path":"<path>"}.`);
  if (skill.files.some((f) => f.isScript)) {
    const async = asyncEnabled ? ' Add "async":true to run it in the background.' : '';
    lines.push(
      `Run a script with ${RUN_SKILL_SCRIPT_TOOL} {"skill":${name},"path":"<path>","args":[]}.${async}`,
    );
  }
  return compose(skill, `## Files of skill "${skill.name}"\n${lines.join('\n')}`, calls, part);
}
