export { createScriptRunner } from './createScriptRunner.js';
export {
  createProcessGuard,
  type ProcessGuard,
  type ProcessGuardOptions,
} from './guard/processGuard.js';
export type { RunCgroup } from './guard/runCgroup.js';
export { lastLines } from './lastLines.js';
export { type LaunchSpec, launchCommand } from './launchCommand.js';
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
