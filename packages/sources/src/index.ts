export { isRemoteBranch, resolveRemoteRef } from './git/gitRemote.js';
export { readLockFile } from './lock/lockFile.js';
export { materializeSources } from './materializeSources.js';
export { SourcesError } from './sourcesError.js';
export {
  isGitSource,
  type LockEntry,
  type MaterializedSources,
  type SharedPins,
  type SourceDefinition,
  type SourceReadiness,
  type SourcesOptions,
} from './sourceTypes.js';
