import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '@skillgate/testkit';
import type { RunnerOptions, RunRequest } from '../src/index.js';

/** The skill directory of the tests: the fixtures folder. */
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

/** Runner options with short limits, so the hostile cases finish fast. */
export function runnerOptions(overrides: Partial<RunnerOptions> = {}): RunnerOptions {
  return {
    interpreters: { '.py': ['python3'], '.sh': ['bash'], '.js': ['node'] },
    envPassthrough: ['PATH', 'HOME', 'LANG'],
    defaultTimeoutSeconds: 10,
    maxTimeoutSeconds: 20,
    maxOutputBytes: 64 * 1024,
    defaultTailLines: 200,
    maxConcurrent: 4,
    maxConcurrentPerPrincipal: 4,
    maxQueue: 8,
    queueTimeoutMs: 5000,
    maxStdinBytes: 1024,
    killGraceMs: 300,
    ...overrides,
  };
}

/** A run request for a fixture script. */
export function request(script: string, overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    skillName: 'fixture-skill',
    skillDir: FIXTURES,
    scriptPath: join(FIXTURES, script),
    executable: false,
    principal: 'alice',
    ...overrides,
  };
}

/** Whether a process still exists; a zombie nobody reaped counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits up to `ms` for a process to be gone, since a SIGKILL lands asynchronously. */
export async function waitGone(pid: number, ms = 1000): Promise<boolean> {
  return waitFor(() => !isAlive(pid), { timeoutMs: ms, what: `process ${pid} to be gone` }).then(
    () => true,
    () => false,
  );
}

/** Parses the pid a fixture prints as `child <pid>` or `pid <pid>`. */
export function printedPid(text: string, label: 'child' | 'pid'): number {
  const match = new RegExp(`${label} (\\d+)`).exec(text);
  if (match?.[1] === undefined) throw new Error(`no "${label} <pid>" in: ${text}`);
  return Number(match[1]);
}

/** Polls until `check` holds or `ms` pass. */
export async function until(check: () => boolean, ms = 3000): Promise<void> {
  await waitFor(check, { timeoutMs: ms, intervalMs: 10 });
}
