export {
  buildSkillEntry,
  SKILL_LIMITS,
  type SkillEntryProblem,
  type SkillEntryResult,
} from './buildSkillEntry.js';
export { createCatalog } from './createCatalog.js';
export { fileToolSuffix } from './fileToolSuffix.js';
export { DEFAULT_MAX_SKILL_MD_BYTES, loadSkills } from './loadSkills.js';
export { MAX_DESCRIPTION_CHARS, parseSkillMd } from './parseSkillMd.js';
export { type BoundedRead, type ReadBoundedOptions, readBounded } from './readBounded.js';
export { renderSummary, type SummaryOptions } from './renderSummary.js';
export { sanitizeName } from './sanitizeName.js';
export { MAX_FILES_PER_SKILL } from './scanSkillFiles.js';
export { SkillsError } from './skillsError.js';
export { skillUri } from './skillUri.js';
export type { ArgumentLimits, RunInput, ToolInputs, ToolInputValidators, ToolSchemas } from './toolInputs.js';
export { DEFAULT_ARGUMENT_LIMITS } from './toolInputs.js';
export {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  CALL_SKILL_TOOL,
  LIST_SKILL_FILES_TOOL,
  LOAD_SKILL_TOOL,
  MIN_NAME_LENGTH,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
} from './toolNames.js';
export type {
  CallTool,
  Catalog,
  CatalogOptions,
  CatalogSkill,
  Disclosure,
  LoadResult,
  LoadSkillsOptions,
  ParseSkillMdOptions,
  ParseSkillMdResult,
  Problem,
  ProblemCode,
  Skill,
  SkillEntry,
  SkillFile,
  SkillMdFields,
  SkillPrompt,
  SkillResourceEntry,
  SkillResourceTarget,
  SkillsErrorCode,
  SkillsExtensionIndex,
  SummaryFormat,
  ToolAccess,
  ToolDefinition,
  ToolInputSchema,
  ToolKind,
  ToolTarget,
  ToolView,
  UpstreamSnapshot,
  UpstreamTool,
  Validation,
} from './types.js';
export { DISCLOSURES } from './types.js';
