import type { JobOutput } from './types.js';

/** The output of a job that has printed nothing yet. */
export const NO_OUTPUT: JobOutput = Object.freeze({
  stdout: '',
  stderr: '',
  stdout_truncated: false,
  stderr_truncated: false,
  stdout_bytes: 0,
  stderr_bytes: 0,
});
