export { createMemorySessionStore } from './memorySessionStore.js';
export { SessionError } from './sessionError.js';
export type {
  ClientInfo,
  MemorySessionStoreOptions,
  SessionErrorCode,
  SessionRecord,
  SessionStore,
  TouchedSession,
} from './types.js';
