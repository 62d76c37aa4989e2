export { createJobRegistry } from './createJobRegistry.js';
export { createScriptRunner } from './createScriptRunner.js';
export { type ProbeOptions, probeSandbox } from './probeSandbox.js';
export { RunnerError } from './runnerError.js';
export type {
  IsolationReport,
  JobRegistry,
  JobRegistryOptions,
  JobState,
  JobStatus,
  LimitName,
  RunnerErrorCode,
  RunnerOptions,
  RunningScript,
  RunProgress,
  RunRequest,
  RunResult,
  SandboxMode,
  SandboxStatus,
  ScriptLimits,
  ScriptOutput,
  ScriptRunner,
} from './types.js';
