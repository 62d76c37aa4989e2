import type { PinStore } from './types.js';

/** Pins of one process (the memory backend has one replica: the first claim is its own). */
export function createMemoryPinStore(): PinStore {
  const pins = new Map<string, string>();
  return {
    async claim(key, value) {
      const held = pins.get(key);
      if (held !== undefined) return held;
      pins.set(key, value);
      return value;
    },
    async get(key) {
      return pins.get(key);
    },
  };
}
