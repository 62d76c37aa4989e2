import type { EventBus, StateEvent } from './types.js';

/** Options of createMemoryEventBus. */
export interface MemoryEventBusOptions {
  /** Receives errors thrown by listeners (delivery to the others goes on). */
  readonly onError?: (error: Error) => void;
}

/** An in-process EventBus: publish delivers synchronously to this process's listeners. */
export function createMemoryEventBus<E = StateEvent>(
  options: MemoryEventBusOptions = {},
): EventBus<E> & {
  /** Delivers to local listeners only (used by the Redis bus for events from other replicas). */
  deliver(event: E): void;
} {
  const listeners = new Set<(event: E) => void>();
  const deliver = (event: E): void => {
    // A copy, so a listener that unsubscribes (itself or another) mid-dispatch changes nothing this time.
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (error) {
        options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  };
  return {
    publish: deliver,
    deliver,
    subscribe(listener) {
      const entry = (event: E): void => listener(event);
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
}
