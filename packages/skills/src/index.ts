export { createCatalog, createCatalogInSlices } from './catalog/createCatalog.js';
export { renderSummary, type SummaryOptions } from './catalog/renderSummary.js';
export { HOST_NAMES_NOTE } from './catalog/skillTexts.js';
export type {
  ArgumentLimits,
  RunInput,
  ToolInputs,
  ToolInputValidators,
  ToolSchemas,
} from './catalog/toolInputs.js';
export { DEFAULT_ARGUMENT_LIMITS } from './catalog/toolInputs.js';
export {
  buildSkillEntry,
  SKILL_LIMITS,
  type SkillEntryProblem,
  type SkillEntryResult,
} from './extension/buildSkillEntry.js';
export { skillUri } from './extension/skillUri.js';
export { confirmFilePlace } from './files/confirmFilePlace.js';
export { type BoundedRead, type ReadBoundedOptions, readBounded } from './files/readBounded.js';
export { readServedFile } from './files/readServedFile.js';
export type { ServedFileCache } from './files/servedFileCache.js';
export { DEFAULT_MAX_SKILL_MD_BYTES, loadSkills } from './load/loadSkills.js';
export { MAX_DESCRIPTION_CHARS, parseSkillMd } from './load/parseSkillMd.js';
export { DEFAULT_MAX_FILE_BYTES, MAX_FILES_PER_SKILL } from './load/scanSkillFiles.js';
export { fileToolSuffix } from './names/fileToolSuffix.js';
export { sanitizeName } from './names/sanitizeName.js';
export {
  ASYNC_CANCEL_TOOL,
  ASYNC_STATUS_TOOL,
  CALL_SKILL_TOOL,
  LIST_SKILL_FILES_TOOL,
  LOAD_SKILL_TOOL,
  MIN_NAME_LENGTH,
  READ_SKILL_FILE_TOOL,
  RUN_SKILL_SCRIPT_TOOL,
} from './names/toolNames.js';
export { SkillsError } from './skillsError.js';
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
