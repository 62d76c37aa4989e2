/** Shared tool that reports the state and output so far of an async job. */
export const ASYNC_STATUS_TOOL = 'skill_get_async_status';

/** Shared tool that cancels an async job. */
export const ASYNC_CANCEL_TOOL = 'skill_cancel_async';

/** Universal and search modes: returns a skill's instructions. */
export const LOAD_SKILL_TOOL = 'load_skill';

/** Search mode: ranks the skills a caller may use for a query. */
export const SEARCH_SKILLS_TOOL = 'search_skills';

/** Universal mode: lists the files of a skill. */
export const LIST_SKILL_FILES_TOOL = 'list_skill_files';

/** Universal mode: reads one file of a skill. */
export const READ_SKILL_FILE_TOOL = 'read_skill_file';

/** Universal mode: runs one script of a skill. */
export const RUN_SKILL_SCRIPT_TOOL = 'run_skill_script';

/** Catalog/universal modes: calls an upstream tool a skill exposes, `{ skill, tool, arguments }`. */
export const CALL_SKILL_TOOL = 'call_skill_tool';

/**
 * Smallest allowed `maxNameLength`: a shortened run_async name (`skill_` + `_run_async_` + `_` + 6 hex, 24
 * chars) still keeps 8 chars for the skill and file parts, so that a model can tell what it runs.
 */
export const MIN_NAME_LENGTH = 32;
