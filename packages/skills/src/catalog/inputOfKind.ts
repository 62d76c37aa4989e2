import type { z } from 'zod';
import type { ToolKind } from './catalogTypes.js';
import type { InputName, ToolInputValidators } from './toolInputs.js';

/**
 * The one map of tool kind -> input contract: what each kind's tools advertise (the catalog's definitions)
 * and what a call of that kind is validated with (the gateway's tools/call), so the two cannot drift.
 */
export const INPUT_OF_KIND = {
  get_info: 'none',
  read: 'none',
  run: 'run',
  run_async: 'runAsync',
  get_async_status: 'jobStatus',
  cancel_async: 'jobCancel',
  load_skill: 'loadSkill',
  search_skills: 'searchSkills',
  list_skill_files: 'listSkillFiles',
  read_skill_file: 'readSkillFile',
  run_skill_script: 'runSkillScript',
  call: 'callArguments',
  call_skill_tool: 'callSkillTool',
} as const satisfies { readonly [K in ToolKind]: InputName };

/** The validated arguments of a call of tool kind K. */
export type InputOf<K extends ToolKind> = z.output<ToolInputValidators[(typeof INPUT_OF_KIND)[K]]>;
