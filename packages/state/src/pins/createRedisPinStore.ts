import type { RedisConnection } from '../redis/createRedisConnection.js';
import type { PinStore } from './types.js';

/** Pins every replica shares: the first SET NX wins and the others read it. */
export function createRedisPinStore(connection: RedisConnection): PinStore {
  const key = (name: string) => connection.key('pin', name);
  return {
    async claim(name, value) {
      const won = await connection.run((client) => client.set(key(name), value, 'NX'));
      if (won === 'OK') return value;
      return (await connection.run((client) => client.get(key(name)))) ?? value;
    },
    async get(name) {
      return (await connection.run((client) => client.get(key(name)))) ?? undefined;
    },
  };
}
