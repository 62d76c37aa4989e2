export { createJobRegistry } from './createJobRegistry.js';
export { createScriptRunner } from './createScriptRunner.js';
export { RunnerError } from './runnerError.js';
export type {
  JobRegistry,
  JobRegistryOptions,
  JobState,
  JobStatus,
  RunnerErrorCode,
  RunnerOptions,
  RunningScript,
  RunRequest,
  RunResult,
  ScriptOutput,
  ScriptRunner,
} from './types.js';
