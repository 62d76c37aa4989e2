export { freePort, type RedisServer, startRedisServer } from './redisServer.js';
export { createTempSkills, skillMd, type TempSkills } from './tempSkills.js';
export { waitFor } from './waitFor.js';
