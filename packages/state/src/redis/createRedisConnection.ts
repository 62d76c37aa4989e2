import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { StateError } from '../stateError.js';
import type { RedisScript } from './redisScript.js';

/** Options of createRedisConnection. */
export interface RedisConnectionOptions {
  /** redis:// or rediss:// URL (from the environment variable named by state.redis_url_env). */
  readonly url: string;
  /** Prepended to every key and channel, so several gateways can share one Redis. */
  readonly keyPrefix: string;
  /**
   * Wraps every round trip to Redis (a command or a script), e.g. in a trace span; `operation` is `command` or
   * `script`. Absent: nothing is wrapped.
   */
  readonly roundTrip?: RoundTrip;
  /** A command without an answer after this long fails with STATE_UNAVAILABLE (default 1000). */
  readonly commandTimeoutMs?: number;
  /** A connection attempt is given up after this long (default 2000). */
  readonly connectTimeoutMs?: number;
  /** How often the health check pings (default 2000). */
  readonly healthIntervalMs?: number;
  /** Receives connection errors (logged by the gateway); never thrown. */
  readonly onError?: (error: Error) => void;
}

/** Wraps one round trip to Redis (createStateBackend's `roundTrip`: the gateway's trace spans). */
export type RoundTrip = <T>(operation: 'command' | 'script', run: () => Promise<T>) => Promise<T>;

/** One replica's connections to Redis: commands on one, subscriptions on another. */
export interface RedisConnection {
  /** `keyPrefix` + the parts joined by `:`. */
  key(...parts: string[]): string;
  /** Runs a command; a failure becomes STATE_FULL (Redis out of memory) or else STATE_UNAVAILABLE. */
  run<T>(op: (client: Redis) => Promise<T>): Promise<T>;
  /** Runs a Lua script by its hash, loading it on the first NOSCRIPT. */
  script(script: RedisScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  /** Publishes a message on a channel (prefixed). */
  publish(channel: string, message: string): Promise<void>;
  /** Receives messages of a channel (prefixed); resubscribes after reconnects; returns unsubscribe. */
  subscribe(channel: string, handler: (message: string) => void): () => void;
  /** True while both connections are up and the last health ping was answered. */
  isHealthy(): boolean;
  /** Resolves true once connected, false after timeoutMs. */
  waitUntilReady(timeoutMs: number): Promise<boolean>;
  /** The raw command client, for tests. */
  readonly client: Redis;
  close(): Promise<void>;
}

// Reconnect quickly at first, then every second: Redis coming back should be noticed within about a second.
const retryStrategy = (times: number): number => Math.min(50 * 2 ** Math.min(times, 5), 1000);

const isOutOfMemory = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const previous = (error as { previousErrors?: unknown }).previousErrors;
  const errors = [error, ...(Array.isArray(previous) ? previous : [])];
  return errors.some((e) => e instanceof Error && /\bOOM\b/.test(e.message));
};

/** Connects to Redis for the shared state; never blocks: commands fail fast until it is reachable. */
export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const commandTimeout = options.commandTimeoutMs ?? 1000;
  const report = (error: Error): void => options.onError?.(error);
  const name = `skillgate-${randomBytes(4).toString('hex')}`;
  // No offline queue and no retries: while Redis is away a command fails at once instead of waiting for it,
  // so a request gets a clear 503 instead of hanging.
  const client = new Redis(options.url, {
    connectionName: name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    retryStrategy,
  });
  // The subscriber queues its SUBSCRIBE commands until connected and resubscribes after every reconnect.
  const subscriber = new Redis(options.url, {
    connectionName: `${name}-sub`,
    maxRetriesPerRequest: null,
    connectTimeout: options.connectTimeoutMs ?? 2000,
    retryStrategy,
  });
  client.on('error', report);
  subscriber.on('error', report);

  const handlers = new Map<string, Set<(message: string) => void>>();
  subscriber.on('message', (channel: string, message: string) => {
    for (const handler of handlers.get(channel) ?? []) {
      try {
        handler(message);
      } catch (error) {
        report(error instanceof Error ? error : new Error(String(error)));
      }
    }
  });

  let closed = false;
  let pingOk = true;
  const ping = (): void => {
    if (client.status !== 'ready') return;
    client.ping().then(
      () => {
        pingOk = true;
      },
      () => {
        pingOk = false;
      },
    );
  };
  const healthTimer = setInterval(ping, options.healthIntervalMs ?? 2000);
  healthTimer.unref();
  client.on('ready', () => {
    pingOk = true;
  });

  const roundTrip = options.roundTrip;
  const send = <T>(operation: 'command' | 'script', op: (c: Redis) => Promise<T>): Promise<T> =>
    roundTrip === undefined ? op(client) : roundTrip(operation, () => op(client));
  const runAs = async <T>(operation: 'command' | 'script', op: (c: Redis) => Promise<T>): Promise<T> => {
    if (closed) throw new StateError('STATE_CLOSED', 'the state store is closed');
    try {
      return await send(operation, op);
    } catch (error) {
      if (error instanceof StateError) throw error;
      // Redis answers writes past its maxmemory with OOM (noeviction): full, not away; say which. In a
      // MULTI the OOM is one of the errors that made EXEC abort.
      if (isOutOfMemory(error)) {
        throw new StateError(
          'STATE_FULL',
          'shared state is full: Redis refused a write because it reached its maxmemory (OOM)',
          { cause: error },
        );
      }
      throw new StateError('STATE_UNAVAILABLE', `shared state unavailable: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };

  const run = <T>(op: (c: Redis) => Promise<T>): Promise<T> => runAs('command', op);

  return {
    client,
    key: (...parts) => `${options.keyPrefix}${parts.join(':')}`,
    run,
    script(script, keys, args) {
      return runAs('script', async (c) => {
        try {
          return await c.evalsha(script.sha, keys.length, ...keys, ...args);
        } catch (error) {
          if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
          return await c.eval(script.lua, keys.length, ...keys, ...args);
        }
      });
    },
    async publish(channel, message) {
      await run((c) => c.publish(`${options.keyPrefix}${channel}`, message));
    },
    subscribe(channel, handler) {
      const full = `${options.keyPrefix}${channel}`;
      let set = handlers.get(full);
      if (set === undefined) {
        set = new Set();
        handlers.set(full, set);
        subscriber.subscribe(full).catch(report);
      }
      set.add(handler);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        set.delete(handler);
        if (set.size === 0 && handlers.get(full) === set) {
          handlers.delete(full);
          if (!closed) subscriber.unsubscribe(full).catch(report);
        }
      };
    },
    isHealthy: () => !closed && client.status === 'ready' && subscriber.status === 'ready' && pingOk,
    async waitUntilReady(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (!(client.status === 'ready' && subscriber.status === 'ready')) {
        if (closed || Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(healthTimer);
      handlers.clear();
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
