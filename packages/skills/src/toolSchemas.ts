import type { ToolInputSchema } from './types.js';

/** Input schemas of every tool kind, built once per catalog and shared by all its tools. */
export interface ToolSchemas {
  readonly none: ToolInputSchema;
  /** get_info takes nothing: the shortest valid schema (no `properties`), since every session lists one per skill. */
  readonly getInfo: ToolInputSchema;
  readonly run: ToolInputSchema;
  readonly runAsync: ToolInputSchema;
  readonly jobStatus: ToolInputSchema;
  readonly jobCancel: ToolInputSchema;
  readonly loadSkill: ToolInputSchema;
  readonly listSkillFiles: ToolInputSchema;
  readonly readSkillFile: ToolInputSchema;
  readonly runSkillScript: ToolInputSchema;
}

const strictObject = (properties: Record<string, object>, required?: string[]): ToolInputSchema =>
  required === undefined
    ? { type: 'object', properties, additionalProperties: false }
    : { type: 'object', properties, required, additionalProperties: false };

/** Builds the input schemas; `maxTimeoutSeconds` bounds every `timeout` argument. */
export function buildToolSchemas(maxTimeoutSeconds: number, asyncEnabled: boolean): ToolSchemas {
  const args = { type: 'array', items: { type: 'string' }, description: 'argv for the script' };
  const stdin = { type: 'string' };
  const timeout = { type: 'number', exclusiveMinimum: 0, maximum: maxTimeoutSeconds, description: 'seconds' };
  const tail = { type: 'integer', minimum: 0, description: 'lines of output to return' };
  const skill = { type: 'string', description: 'skill name' };
  const path = { type: 'string', description: 'file path inside the skill' };
  const background = { type: 'boolean', description: 'start in the background and return a job_id' };
  return {
    none: strictObject({}),
    getInfo: { type: 'object' },
    run: strictObject({ args, stdin, timeout, tail }),
    runAsync: strictObject({ args, stdin, timeout }),
    jobStatus: strictObject({ job_id: { type: 'string' }, tail }, ['job_id']),
    jobCancel: strictObject({ job_id: { type: 'string' } }, ['job_id']),
    loadSkill: strictObject({ name: skill }, ['name']),
    listSkillFiles: strictObject({ skill }, ['skill']),
    readSkillFile: strictObject({ skill, path }, ['skill', 'path']),
    runSkillScript: strictObject(
      asyncEnabled
        ? { skill, path, args, stdin, timeout, tail, async: background }
        : { skill, path, args, stdin, timeout, tail },
      ['skill', 'path'],
    ),
  };
}
