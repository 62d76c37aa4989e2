export { createScriptRunner } from './createScriptRunner.js';
export { type LaunchSpec, launchCommand } from './launchCommand.js';
export {
  createProcessGuard,
  type ProcessGuard,
  type ProcessGuardOptions,
  type RunCgroup,
} from './processGuard.js';
export { RunnerError } from './runnerError.js';
export { type ProbeOptions, probeSandbox } from './sandbox/probeSandbox.js';
export type {
  IsolationReport,
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
