import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { RedisConnection } from '../redis/createRedisConnection.js';
import { createMemoryEventBus } from './createMemoryEventBus.js';
import { stateEventSchema } from './stateEventSchema.js';
import type { EventBus, StateEvent } from './types.js';

/** Options of createRedisEventBus. */
export interface RedisEventBusOptions<E> {
  readonly connection: RedisConnection;
  /** Channel name under the key prefix (default `events`); one bus per channel. */
  readonly channel?: string;
  /** Validates events arriving from other replicas (default: the StateEvent schema). */
  readonly schema?: z.ZodType<E>;
  /** Receives publish failures, malformed messages and listener errors. */
  readonly onError?: (error: Error) => void;
}

/**
 * An EventBus across replicas over Redis pub/sub. Local listeners get an event synchronously from publish;
 * other replicas get it through Redis, and a replica ignores its own messages, so nobody gets one twice.
 * Delivery is at most once: an event published while Redis is away is lost for the other replicas
 * (list_changed notices are hints; clients re-list on their next request anyway).
 */
export function createRedisEventBus<E = StateEvent>(
  options: RedisEventBusOptions<E>,
): EventBus<E> & {
  close(): void;
} {
  const origin = randomBytes(8).toString('hex');
  const channel = options.channel ?? 'events';
  const schema = (options.schema ?? stateEventSchema) as z.ZodType<E>;
  const report = (error: Error): void => options.onError?.(error);
  const local = createMemoryEventBus<E>({ onError: report });

  const unsubscribe = options.connection.subscribe(channel, (message) => {
    let envelope: unknown;
    try {
      envelope = JSON.parse(message);
    } catch {
      report(new Error(`malformed message on ${channel}`));
      return;
    }
    if (
      typeof envelope !== 'object' ||
      envelope === null ||
      !('origin' in envelope) ||
      !('event' in envelope)
    ) {
      report(new Error(`malformed message on ${channel}`));
      return;
    }
    if (envelope.origin === origin) return;
    const parsed = schema.safeParse(envelope.event);
    if (!parsed.success) {
      report(new Error(`unknown event on ${channel}: ${parsed.error.message}`));
      return;
    }
    local.deliver(parsed.data);
  });

  return {
    publish(event) {
      local.deliver(event);
      options.connection.publish(channel, JSON.stringify({ origin, event })).catch(report);
    },
    subscribe: (listener) => local.subscribe(listener),
    close: unsubscribe,
  };
}
