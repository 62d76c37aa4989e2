import type { LimitName, RunResult, ScriptLimits } from './types.js';

// What interpreters print when an allocation fails under RLIMIT_DATA (Python, node, bash, C++).
const OUT_OF_MEMORY = /MemoryError|out of memory|cannot allocate memory|xmalloc: cannot allocate|bad_alloc/i;
// Python ignores SIGXFSZ and raises EFBIG instead of dying; ENOSPC is the sandbox's /tmp (file_bytes) full.
const FILE_TOO_LARGE = /File too large|No space left on device/;

/** Which limit a finished run hit, when the kernel (or the interpreter's last words) can tell. */
export function limitExceeded(
  result: RunResult,
  limits: ScriptLimits,
  pidsLimitHit: boolean,
  memoryLimitHit = false,
): LimitName | undefined {
  if (result.timed_out) return undefined;
  if (result.signal === 'SIGXCPU') return 'cpu_seconds';
  if (result.signal === 'SIGXFSZ') return 'file_bytes';
  // The run's memory cgroup counts the processes the kernel killed for going over it (docs/sandbox.md).
  if (memoryLimitHit) return 'memory';
  // The cgroup counts every fork the pids limit refused, whether or not the script survived it.
  if (pidsLimitHit) return 'processes';
  if (result.exit_code === 0) return undefined;
  if (limits.memoryMb > 0 && OUT_OF_MEMORY.test(result.stderr)) return 'memory';
  if (limits.fileBytes > 0 && FILE_TOO_LARGE.test(result.stderr)) return 'file_bytes';
  return undefined;
}
