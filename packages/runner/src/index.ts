export { createScriptRunner } from './createScriptRunner.js';
export { findExecutable } from './findExecutable.js';
export { drainCgroup } from './guard/cgroupProcesses.js';
export { createProcessGuard, type ProcessGuard } from './guard/processGuard.js';
export type { RunCgroup } from './guard/runCgroup.js';
export { v1CgroupRoot } from './guard/v1CgroupRoot.js';
export { lastLines } from './lastLines.js';
export { launchCommand } from './launchCommand.js';
export { RunnerError } from './runnerError.js';
export { probeSandbox } from './sandbox/probeSandbox.js';
export { sandboxArguments } from './sandbox/sandboxArguments.js';
export { SANDBOX_PATH, systemLayout } from './sandbox/systemLayout.js';
export { createSlotPool, type SlotPool } from './slotPool.js';
export type {
  LimitName,
  RunnerErrorCode,
  RunnerOptions,
  RunningScript,
  RunProgress,
  RunRequest,
  RunResult,
  SandboxMode,
  SandboxStatus,
  ScriptOutput,
  ScriptRunner,
} from './types.js';
