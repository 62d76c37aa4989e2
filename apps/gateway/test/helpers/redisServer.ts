// One real-redis-server helper for every package's tests: the state package owns it.
export * from '../../../../packages/state/test/helpers/redisServer.js';
