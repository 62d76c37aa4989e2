import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEventBus } from '@modelcontextprotocol/server';
import type { Principal } from '../auth/accessPolicy.js';

type ServerEvent = Parameters<ServerEventBus['publish']>[0];
type Listener = (event: ServerEvent) => void;

/**
 * The change bus of the 2026-07-28 `subscriptions/listen` streams, with each stream's principal. The SDK's
 * own bus tells every stream of every change; a stream here hears only of changes its principal may see
 * (the 2025 sessions' rule: docs/protocol-eras.md, "Listen streams").
 */
export interface ListenAudiences extends ServerEventBus {
  /** Runs `serve` with `principal` as the owner of any listen stream it opens. */
  runAs<T>(principal: Principal, serve: () => T): T;
  /**
   * Publishes `event` to the streams whose principal `affects` accepts; asked once per distinct principal
   * with a stream open. A stream whose principal is unknown hears nothing.
   */
  publishTo(event: ServerEvent, affects: (principal: Principal) => boolean | Promise<boolean>): Promise<void>;
}

/** Builds the bus; the SDK registers a stream's listener synchronously while serving its request. */
export function createListenAudiences(onerror: (error: unknown) => void): ListenAudiences {
  const owner = new AsyncLocalStorage<Principal>();
  const listeners = new Map<Listener, Principal | undefined>();
  const deliver = (listener: Listener, event: ServerEvent) => {
    try {
      listener(event);
    } catch (error) {
      onerror(error);
    }
  };
  return {
    runAs: (principal, serve) => owner.run(principal, serve),
    subscribe(listener) {
      listeners.set(listener, owner.getStore());
      return () => {
        listeners.delete(listener);
      };
    },
    publish(event) {
      for (const [listener, principal] of [...listeners])
        if (principal !== undefined) deliver(listener, event);
    },
    async publishTo(event, affects) {
      const verdicts = new Map<string, boolean>();
      for (const [listener, principal] of [...listeners]) {
        if (principal === undefined) continue;
        let verdict = verdicts.get(principal.id);
        if (verdict === undefined) {
          verdict = await affects(principal);
          verdicts.set(principal.id, verdict);
        }
        // A stream closed while an earlier verdict was awaited is gone from the map.
        if (verdict && listeners.has(listener)) deliver(listener, event);
      }
    },
  };
}
