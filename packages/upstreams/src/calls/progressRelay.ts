import type { Client } from '@modelcontextprotocol/client';
import type { UpstreamProgress } from '../types.js';

/** Options of createProgressRelay. */
export interface ProgressRelayOptions {
  /** A caller's progress handler threw (the call goes on). */
  readonly handlerFailed: (error: unknown) => void;
}

/** The progress of one connection's calls in flight, by the token the connection sent. */
export interface ProgressRelay {
  /** A fresh token (never the caller's own) whose progress goes to onProgress until release(). */
  open(onProgress: (progress: UpstreamProgress) => void): string;
  release(token: string): void;
  /** Hands a message to the caller it is progress for; false when it is not progress of an open token. */
  deliver(message: unknown): boolean;
  /** Takes progress of our tokens off a connected client's transport as it is read. */
  attach(client: Client): void;
}

/**
 * The progress side of upstream calls. The client hands notifications to their handlers a microtask after it
 * reads them but settles a response at once, dropping the progress of a call whose result came in the same
 * read (typescript-sdk issue #2580). Progress of our own tokens is therefore taken off the transport as it is
 * read, so every step reaches the caller, in order, before the result does.
 */
export function createProgressRelay(options: ProgressRelayOptions): ProgressRelay {
  const handlers = new Map<string, (progress: UpstreamProgress) => void>();
  let seq = 0;
  const deliver = (message: unknown): boolean => {
    const step = progressOf(message);
    const handler = step === undefined ? undefined : handlers.get(step.token);
    if (step === undefined || handler === undefined) return false;
    try {
      handler(step.progress);
    } catch (error) {
      options.handlerFailed(error);
    }
    return true;
  };
  return {
    open(onProgress) {
      const token = `skillgate-${++seq}`;
      handlers.set(token, onProgress);
      return token;
    },
    release(token) {
      handlers.delete(token);
    },
    deliver,
    attach(client) {
      const transport = client.transport;
      if (transport === undefined) return;
      const passOn = transport.onmessage;
      transport.onmessage = (message, extra) => {
        if (!deliver(message)) passOn?.(message, extra);
      };
    },
  };
}

// A notifications/progress message: its token and what the caller is given.
function progressOf(message: unknown): { token: string; progress: UpstreamProgress } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== 'notifications/progress' || id !== undefined) return undefined;
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown };
  if (typeof p.progressToken !== 'string' || typeof p.progress !== 'number') return undefined;
  return {
    token: p.progressToken,
    progress: {
      progress: p.progress,
      ...(typeof p.total === 'number' ? { total: p.total } : {}),
      ...(typeof p.message === 'string' ? { message: p.message } : {}),
    },
  };
}
