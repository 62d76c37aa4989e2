export type {
  CallTool,
  Catalog,
  CatalogOptions,
  CatalogSkill,
  Disclosure,
  SkillPrompt,
  SummaryFormat,
  ToolDefinition,
  ToolKind,
  ToolTarget,
  ToolView,
} from './catalog/catalogTypes.js';
export { DISCLOSURES } from './catalog/catalogTypes.js';
export { createCatalog, createCatalogInSlices } from './catalog/createCatalog.js';
export type { InputOf } from './catalog/inputOfKind.js';
export { INPUT_OF_KIND } from './catalog/inputOfKind.js';
export { renderSummary } from './catalog/renderSummary.js';
export { HOST_NAMES_NOTE } from './catalog/skillTexts.js';
export type { RunInput } from './catalog/toolInputs.js';
export { MAX_SEARCH_LIMIT } from './catalog/toolInputs.js';
export { skillUri } from './extension/skillUri.js';
export { confirmFilePlace } from './files/confirmFilePlace.js';
export type { BoundedRead } from './files/readBounded.js';
export { readServedFile } from './files/readServedFile.js';
export type { ServedFileCache } from './files/servedFileCache.js';
export { sha256Digest } from './files/sha256Digest.js';
export { DEFAULT_MAX_SKILL_MD_BYTES, loadSkills } from './load/loadSkills.js';
export type {
  LoadResult,
  LoadSkillsOptions,
  ParseSkillMdResult,
  Problem,
  ProblemCode,
  Skill,
  SkillFile,
  SourceRoot,
  Validation,
} from './load/loadTypes.js';
export { MAX_DESCRIPTION_CHARS, parseSkillMd } from './load/parseSkillMd.js';
export { DEFAULT_MAX_FILE_BYTES } from './load/scanSkillFiles.js';
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
export {
  buildSkillIndex,
  buildSkillIndexInSlices,
  LIST_ALL_QUERY,
  queryTermCount,
  type SkillHit,
  type SkillIndex,
  type SkillQuery,
  type SkillSearchPage,
} from './search/skillIndex.js';
export { SkillsError } from './skillsError.js';
export type {
  DroppedTool,
  UpstreamSnapshot,
  UpstreamState,
  UpstreamTool,
} from './upstreams/upstreamTypes.js';
