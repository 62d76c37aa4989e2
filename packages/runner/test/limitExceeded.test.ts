import { describe, expect, it } from 'vitest';
import type { RunResult } from '../src/index.js';
import { limitExceeded } from '../src/limitExceeded.js';

const LIMITS = { memoryMb: 64, processes: 8, fileBytes: 1024, cpuSeconds: 2 };
const result = (fields: Partial<RunResult>): RunResult => ({
  exit_code: 1,
  signal: null,
  timed_out: false,
  duration_ms: 5,
  stdout: '',
  stderr: '',
  stdout_truncated: false,
  stderr_truncated: false,
  stdout_bytes: 0,
  stderr_bytes: 0,
  ...fields,
});

describe('limitExceeded', () => {
  it('names the limit from the signal the kernel sent', () => {
    expect(limitExceeded(result({ exit_code: null, signal: 'SIGXCPU' }), LIMITS, false)).toBe('cpu_seconds');
    expect(limitExceeded(result({ exit_code: null, signal: 'SIGXFSZ' }), LIMITS, false)).toBe('file_bytes');
  });

  it("names the memory limit whenever the run's memory cgroup had a process killed, whatever it printed", () => {
    expect(limitExceeded(result({ exit_code: null, signal: 'SIGKILL' }), LIMITS, false, true)).toBe('memory');
    expect(limitExceeded(result({ exit_code: 1 }), LIMITS, true, true)).toBe('memory');
    expect(
      limitExceeded(result({ exit_code: null, signal: 'SIGKILL' }), LIMITS, false, false),
    ).toBeUndefined();
  });

  it('names the process limit whenever the cgroup refused a fork, even if the script coped', () => {
    expect(limitExceeded(result({ exit_code: 0 }), LIMITS, true)).toBe('processes');
  });

  it("reads the interpreter's last words for memory and file size, only on a failed run with that limit set", () => {
    expect(limitExceeded(result({ stderr: 'Traceback...\nMemoryError\n' }), LIMITS, false)).toBe('memory');
    expect(
      limitExceeded(result({ stderr: 'FATAL ERROR: JavaScript heap out of memory' }), LIMITS, false),
    ).toBe('memory');
    expect(limitExceeded(result({ stderr: 'OSError: [Errno 27] File too large' }), LIMITS, false)).toBe(
      'file_bytes',
    );
    expect(limitExceeded(result({ exit_code: 0, stderr: 'MemoryError' }), LIMITS, false)).toBeUndefined();
    expect(
      limitExceeded(result({ stderr: 'MemoryError' }), { ...LIMITS, memoryMb: 0 }, false),
    ).toBeUndefined();
  });

  it('says nothing about a timed out run or an ordinary failure', () => {
    expect(limitExceeded(result({ timed_out: true, signal: 'SIGXCPU' }), LIMITS, true)).toBeUndefined();
    expect(limitExceeded(result({ stderr: 'usage: x.py FILE' }), LIMITS, false)).toBeUndefined();
  });
});
