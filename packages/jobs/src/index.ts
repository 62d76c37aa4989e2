export { createJobRegistry } from './createJobRegistry.js';
export type { JobRegistry, JobStatus } from './jobTypes.js';
