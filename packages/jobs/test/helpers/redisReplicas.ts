import { createRedisConnection, type RedisConnection } from '@skillgate/state';

let counter = 0;

/** A key prefix no other test uses, so tests share one redis-server without seeing each other's keys. */
export const freshPrefix = (): string => `t${process.pid}-${++counter}:`;

/** Opens connections that stand for separate replicas (each closed by closeAll). */
export function connections(url: string): {
  open(
    prefix: string,
    options?: { commandTimeoutMs?: number; healthIntervalMs?: number },
  ): Promise<RedisConnection>;
  closeAll(): Promise<void>;
} {
  const opened: RedisConnection[] = [];
  return {
    async open(prefix, options = {}) {
      const connection = createRedisConnection({ url, keyPrefix: prefix, ...options });
      opened.push(connection);
      if (!(await connection.waitUntilReady(5000))) throw new Error('Redis did not become ready');
      return connection;
    },
    async closeAll() {
      for (const c of opened.splice(0)) await c.close();
    },
  };
}
