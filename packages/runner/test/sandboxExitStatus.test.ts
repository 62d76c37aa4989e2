import { describe, expect, it } from 'vitest';
import type { RunResult } from '../src/index.js';
import { sandboxExitStatus } from '../src/sandbox/sandboxExitStatus.js';

const result = (exit_code: number | null, signal: string | null = null): RunResult => ({
  exit_code,
  signal,
  timed_out: false,
  duration_ms: 1,
  stdout: '',
  stderr: '',
  stdout_truncated: false,
  stderr_truncated: false,
  stdout_bytes: 0,
  stderr_bytes: 0,
});

describe('sandboxExitStatus', () => {
  it("reports bubblewrap's 128+N as signal N, like an unsandboxed run", () => {
    expect(sandboxExitStatus(result(152))).toMatchObject({ exit_code: null, signal: 'SIGXCPU' });
    expect(sandboxExitStatus(result(137))).toMatchObject({ exit_code: null, signal: 'SIGKILL' });
  });

  it('keeps ordinary exit codes and real signals', () => {
    expect(sandboxExitStatus(result(0))).toMatchObject({ exit_code: 0, signal: null });
    expect(sandboxExitStatus(result(128))).toMatchObject({ exit_code: 128, signal: null });
    expect(sandboxExitStatus(result(255))).toMatchObject({ exit_code: 255, signal: null });
    expect(sandboxExitStatus(result(null, 'SIGTERM'))).toMatchObject({ exit_code: null, signal: 'SIGTERM' });
  });
});
