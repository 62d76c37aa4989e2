/** Change events for the SDK's `subscriptions/listen` streams (the shape of its ServerEvent). */
export type ListChangedEvent =
  | {
      readonly kind: 'tools_list_changed' | 'prompts_list_changed' | 'resources_list_changed';
      readonly params?: Readonly<Record<string, unknown>>;
    }
  | {
      readonly kind: 'resource_updated';
      readonly uri: string;
      readonly params?: Readonly<Record<string, unknown>>;
    };

/** A JSON-RPC notification to deliver on the stream of one 2025-era session, wherever it is held. */
export interface SessionNotifyEvent {
  readonly kind: 'session_notify';
  readonly sessionId: string;
  readonly message: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> };
}

/**
 * A JSON-RPC notification for the GET streams of every 2025-era session sharing an unlock scope (a
 * principal-scoped unlock changes the lists of that principal's other sessions, wherever they are held).
 */
export interface ScopeNotifyEvent {
  readonly kind: 'scope_notify';
  readonly scopeKey: string;
  /** The session that caused it (it hears of it on its own response stream). */
  readonly exceptSessionId?: string;
  readonly message: { readonly method: string; readonly params?: Readonly<Record<string, unknown>> };
}

/** Everything that crosses replicas on the notification bus. */
export type StateEvent = ListChangedEvent | SessionNotifyEvent | ScopeNotifyEvent;

/**
 * Publish/subscribe between replicas. Structurally a `ServerEventBus` of the MCP SDK (v2): publish never
 * throws or waits (delivery failures go to the bus's onError), and a publisher's own listeners get the event
 * synchronously, exactly once.
 */
export interface EventBus<E = StateEvent> {
  /** Delivers to this replica's listeners now and to every other replica's listeners soon. */
  publish(event: E): void;
  /** Registers a listener; returns an idempotent unsubscribe. */
  subscribe(listener: (event: E) => void): () => void;
}
