import {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  CALL_SKILL_TOOL,
  LIST_SKILL_FILES_TOOL,
  LOAD_SKILL_TOOL,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
  SEARCH_SKILLS_TOOL,
} from '../names/toolNames.js';
import type { CatalogSkill, ToolDefinition } from './catalogTypes.js';
import { INPUT_OF_KIND } from './inputOfKind.js';
import type { ToolSchemas } from './toolInputs.js';

/** The tools that belong to no skill: the async pair and the fixed universal/catalog-mode tools. */
export interface SharedTools {
  /** Status then cancel; empty when async is disabled. */
  readonly async: readonly ToolDefinition[];
  /** list_skill_files, read_skill_file, run_skill_script (load_skill depends on the view, see loadSkillTool). */
  readonly universal: readonly ToolDefinition[];
  /** read_skill_file, run_skill_script: the calls catalog-mode get_info texts name. */
  readonly catalog: readonly ToolDefinition[];
  /** call_skill_tool: catalog, universal and search modes list it when a usable skill uses upstreams. */
  readonly dispatcher: ToolDefinition;
  /** search_skills, load_skill (without a skill list), read_skill_file, run_skill_script: search mode's first tools. */
  readonly search: readonly ToolDefinition[];
}

const readOnly = { readOnlyHint: true };

/** Builds the shared tool definitions of a catalog. */
export function buildSharedTools(schemas: ToolSchemas, asyncEnabled: boolean): SharedTools {
  const async: ToolDefinition[] = asyncEnabled
    ? [
        {
          name: ASYNC_STATUS_TOOL,
          description: 'State, exit code and output so far of a background script job.',
          inputSchema: schemas[INPUT_OF_KIND.get_async_status],
          annotations: readOnly,
        },
        {
          name: ASYNC_CANCEL_TOOL,
          description: 'Cancel a background script job.',
          inputSchema: schemas[INPUT_OF_KIND.cancel_async],
        },
      ]
    : [];
  const runNote = asyncEnabled ? ' Set async to start it in the background and get a job_id.' : '';
  const readFile: ToolDefinition = {
    name: READ_SKILL_FILE_TOOL,
    description: "Read a file of a skill by its path, as listed in the skill's instructions.",
    inputSchema: schemas[INPUT_OF_KIND.read_skill_file],
    annotations: readOnly,
  };
  const runScript: ToolDefinition = {
    name: RUN_SKILL_SCRIPT_TOOL,
    description: `Run a script (a file under scripts/) of a skill. Arguments are passed as argv, never through a shell.${runNote}`,
    inputSchema: schemas[INPUT_OF_KIND.run_skill_script],
  };
  const search: ToolDefinition[] = [
    {
      name: SEARCH_SKILLS_TOOL,
      description:
        'Find skills for a task: ranks the skills you may use by how well their name, description, instructions, files and tools match the query. Then call load_skill with a result\'s skill to read its instructions. Query "*" lists every skill, page by page.',
      inputSchema: schemas[INPUT_OF_KIND.search_skills],
      annotations: readOnly,
    },
    {
      name: LOAD_SKILL_TOOL,
      description:
        'Load a skill by name (as search_skills returns it): its instructions, then the exact read_skill_file, run_skill_script and call_skill_tool calls for its files and tools.',
      inputSchema: schemas[INPUT_OF_KIND.load_skill],
      annotations: readOnly,
    },
    readFile,
    runScript,
  ];
  return {
    async,
    search,
    universal: [
      {
        name: LIST_SKILL_FILES_TOOL,
        description: 'List the files of a skill: path, size, and whether it is a script.',
        inputSchema: schemas[INPUT_OF_KIND.list_skill_files],
        annotations: readOnly,
      },
      readFile,
      runScript,
    ],
    catalog: [readFile, runScript],
    dispatcher: {
      name: CALL_SKILL_TOOL,
      description:
        "Call a tool of another MCP server that a skill exposes. Read the skill's instructions first: they print each tool's exact name and argument schema.",
      inputSchema: schemas[INPUT_OF_KIND.call_skill_tool],
    },
  };
}

/** The load_skill tool, whose description lists the skills a view may use. */
export function loadSkillTool(entries: readonly CatalogSkill[], schemas: ToolSchemas): ToolDefinition {
  const list = entries
    .map((e) => `- ${e.skill.name}: ${e.skill.description.replace(/\s+/g, ' ')}`)
    .join('\n');
  return {
    name: LOAD_SKILL_TOOL,
    description: `Load a skill by name: returns its instructions and file list. Load a skill before using it.\n${
      list === '' ? 'No skills are available.' : `Skills:\n${list}`
    }`,
    inputSchema: schemas[INPUT_OF_KIND.load_skill],
    annotations: readOnly,
  };
}
