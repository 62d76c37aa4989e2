import type { EventBus, StateEvent } from '@skillgate/state';
import type { RelistWatch } from './relistWatch.js';
import type { ToolsChangedNotice } from './toolCall.js';

/** Options of toolsChangedNotice. */
export interface ToolsChangedNoticeOptions {
  /** A 2025-era session's watch: holds the call's result until the session re-lists. */
  readonly relist: RelistWatch | undefined;
  /** A principal-scoped unlock tells that principal's other sessions, on any replica. */
  readonly events: Pick<EventBus<StateEvent>, 'publish'>;
}

/**
 * How a call that changed its caller's lists (an unlock) says so: tools/list_changed on the call's own
 * response stream (so clients without a GET stream get it too), and to the principal's other sessions.
 */
export function toolsChangedNotice(options: ToolsChangedNoticeOptions): ToolsChangedNotice {
  const { relist, events } = options;
  return async (call) => {
    // Armed before the notification goes out: the client's tools/list may come back at once.
    call.heldUntilRelisted = relist?.expect();
    await call.notify({ method: 'notifications/tools/list_changed' });
    // A principal-scoped unlock changes the lists of that principal's other sessions too, on any replica.
    const { audience } = call;
    if (audience.sessionId !== undefined && audience.scopeKey !== audience.sessionId) {
      events.publish({
        kind: 'scope_notify',
        scopeKey: audience.scopeKey,
        exceptSessionId: audience.sessionId,
        message: { method: 'notifications/tools/list_changed' },
      });
    }
  };
}
