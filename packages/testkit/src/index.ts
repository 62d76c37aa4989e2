export { type AuthorizationClient, makeKey } from './authorization/keysAndClients.js';
export { type AuthorizationServer, startAuthorizationServer } from './authorizationServer.js';
export {
  createTestRepo,
  type FileServer,
  type GitServer,
  startFileServer,
  startGitServer,
  type TestRepo,
} from './gitServer.js';
export { BACKEND_HEADER, type Haproxy, startHaproxy } from './haproxy.js';
export { freePort, type RedisServer, startRedisServer } from './redisServer.js';
export {
  type RegistryQuery,
  type RegistryServer,
  readRegistryQueries,
  readRegistryServers,
  writeRegistrySkills,
} from './registrySkills.js';
export { createTempSkills, skillMd, type TempSkills } from './tempSkills.js';
export {
  HOSTILE_PROCESS_UPSTREAM,
  HOSTILE_UPSTREAM,
  type HttpTestUpstream,
  isProcessAlive,
  startHostileUpstream,
  startHttpFixture,
  startHttpUpstream,
  TERMINAL_INJECTION_UPSTREAM,
  TEST_UPSTREAM,
} from './upstreams.js';
export { waitFor } from './waitFor.js';
