export type { AccessPolicy, Principal, TokenEntry } from './auth/accessPolicy.js';
export type { Gateway, GatewayOptions } from './createGateway.js';
export { createGateway } from './createGateway.js';
export type { GatewayErrorCode } from './errors/gatewayError.js';
export { GatewayError } from './errors/gatewayError.js';
export type { AppDeps } from './http/buildApp.js';
export { buildApp } from './http/buildApp.js';
export type { CatalogSource } from './reload/catalogSource.js';
export { buildCatalog, createCatalogSource } from './reload/catalogSource.js';
