import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import type { InitializeRequest, Server } from '@modelcontextprotocol/server';
import { SessionError, type SessionRecord } from '@skillgate/sessions';
import type { Principal } from './accessPolicy.js';
import type { DisclosurePicker } from './disclosure/clientProfiles.js';
import type { Audience } from './disclosure/disclosurePolicy.js';
import { GatewayError } from './gatewayError.js';
import { NativeHttpTransport, type SessionTransport } from './nativeHttpTransport.js';
import type { GatewayRuntime } from './runtime.js';
import { createSessionServer } from './sessionServer.js';

/** A 2025-era session's live protocol objects (the store holds its state). */
export interface LiveSession {
  readonly record: SessionRecord;
  readonly principal: Principal;
  /** Who the session is to the disclosure policy. */
  readonly audience: Audience;
  readonly transport: SessionTransport;
  readonly server: Server;
}

/** The open MCP sessions of this process: transports by session id, state in the SessionStore. */
export interface LiveSessions {
  /** Creates a session for an initialize request; throws SESSION_LIMIT when the store is full. */
  open(principal: Principal, initialize: InitializeRequest): Promise<LiveSession>;
  /** The session for id if it exists and belongs to principal; refreshes its idle timer. */
  find(id: string, principal: Principal): Promise<LiveSession | undefined>;
  /** Closes a session's transport (its streams end) and forgets it. */
  close(id: string): Promise<void>;
  /** Every open session (for reload notifications and shutdown). */
  all(): IterableIterator<LiveSession>;
  readonly size: number;
}

/** Creates the session table; a session is forgotten once, whatever ended it (DELETE, expiry, shutdown). */
export function createLiveSessions(runtime: GatewayRuntime, pickDisclosure: DisclosurePicker): LiveSessions {
  const live = new Map<string, LiveSession>();

  const forget = (record: SessionRecord): void => {
    if (!live.delete(record.id)) return;
    void runtime.store.delete(record.id);
    // Jobs of a session-scoped session die with it; principal-scoped jobs outlive one connection.
    if (record.scopeKey === record.id) runtime.jobs.dropOwner(record.id);
  };

  return {
    async open(principal, initialize) {
      const id = randomUUID();
      const client = initialize.params.clientInfo;
      const record: SessionRecord = {
        id,
        principal: principal.name,
        client: { name: client.name, version: client.version },
        disclosure: pickDisclosure(client.name, principal.name),
        scopeKey: runtime.config.sessions.scope === 'principal' ? `principal:${principal.name}` : id,
        createdAt: Date.now(),
      };
      try {
        await runtime.store.create(record);
      } catch (error) {
        if (error instanceof SessionError) {
          const code = error.code === 'PRINCIPAL_SESSION_LIMIT' ? 'RATE_LIMITED' : 'SESSION_LIMIT';
          throw new GatewayError(code, error.message, { cause: error, headers: { 'Retry-After': '30' } });
        }
        throw error;
      }
      const audience: Audience = {
        era: 'legacy',
        disclosure: record.disclosure,
        principal,
        scopeKey: record.scopeKey,
        sessionId: id,
      };
      const transport: SessionTransport =
        runtime.config.server.transport === 'sdk'
          ? new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => id })
          : new NativeHttpTransport(id, {
              maxBatch: runtime.config.server.max_batch_size,
              maxResponseBytes: runtime.config.server.max_response_bytes,
            });
      // onsessionclosed fires only on DELETE; onclose fires on every close, so clean up there.
      transport.onclose = () => forget(record);
      const server = createSessionServer(runtime, audience);
      await server.connect(transport);
      const session: LiveSession = { record, principal, audience, transport, server };
      live.set(id, session);
      runtime.metrics.inc('skillgate_sessions_created_total');
      runtime.log.info(
        { session: id, principal: principal.name, client: record.client, disclosure: record.disclosure },
        'session opened',
      );
      return session;
    },
    async find(id, principal) {
      const session = live.get(id);
      // A session of another principal is reported exactly like an unknown one.
      if (session === undefined || session.principal.name !== principal.name) return undefined;
      if ((await runtime.store.get(id)) === undefined) {
        await session.transport.close();
        return undefined;
      }
      return session;
    },
    async close(id) {
      const session = live.get(id);
      if (session !== undefined) await session.transport.close();
    },
    all() {
      return live.values();
    },
    get size() {
      return live.size;
    },
  };
}
