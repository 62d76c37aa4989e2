export { contentDigest } from './contentDigest.js';
export { isCommitId, isRemoteBranch, resolveRemoteRef } from './git/gitRemote.js';
export { readLockFile, writeLockFile } from './lock/lockFile.js';
export { type MaterializeMode, materializeSources, sharedPinKey } from './materializeSources.js';
export { SourcesError, type SourcesErrorCode } from './sourcesError.js';
export {
  type ArchiveSource,
  type GitSource,
  isGitSource,
  type Lock,
  type LockEntry,
  type MaterializedSources,
  type SharedPins,
  type SourceDefinition,
  type SourceLimits,
  type SourceStatus,
  type SourcesOptions,
} from './sourceTypes.js';
