export type { Gateway } from './createGateway.js';
export { createGateway } from './createGateway.js';
export { withMetricsTable } from './observability/metricsReference.js';
