export type { AccessPolicy, Principal, TokenEntry } from './accessPolicy.js';
export type { AppDeps } from './buildApp.js';
export { buildApp } from './buildApp.js';
export type { CatalogSource } from './catalogSource.js';
export { buildCatalog, createCatalogSource } from './catalogSource.js';
export type { Gateway, GatewayOptions } from './createGateway.js';
export { createGateway } from './createGateway.js';
export type { GatewayErrorCode } from './gatewayError.js';
export { GatewayError } from './gatewayError.js';
