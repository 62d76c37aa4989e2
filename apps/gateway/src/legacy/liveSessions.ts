import { randomUUID } from 'node:crypto';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import {
  type InitializeRequest,
  type Server,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import type { JobRegistry } from '@skillgate/jobs';
import type { EventBus, SessionRecord, SessionStore, StateEvent } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../auth/accessPolicy.js';
import { createSessionAnswers } from '../direct/sessionAnswers.js';
import type { Audience } from '../disclosure/audience.js';
import type { DisclosurePicker } from '../disclosure/clientProfiles.js';
import { createMcpServer, type McpServerOptions } from '../mcp/createMcpServer.js';
import { boundStrings } from '../observability/boundStrings.js';
import type { Metrics } from '../observability/metrics.js';
import type { SkillsService } from '../skillsExtension/skillsService.js';
import { createRelistWatch } from '../tools/relistWatch.js';
import { NativeHttpTransport, type SessionTransport } from './nativeHttpTransport.js';
import { replayInitialize } from './replayInitialize.js';

/** A 2025-era session's live protocol objects (the store holds its state). */
export interface LiveSession {
  readonly record: SessionRecord;
  readonly principal: Principal;
  /** Who the session is to the disclosure policy. */
  readonly audience: Audience;
  readonly transport: SessionTransport;
  readonly server: Server;
}

/**
 * The 2025-era sessions this process holds protocol objects for: the ones it opened, and the ones it rebuilt
 * from the store when a request for a session opened elsewhere (another replica, an earlier process) arrived.
 */
export interface LiveSessions {
  /** Creates a session for an initialize request; throws SESSION_LIMIT when the store is full. */
  open(principal: Principal, initialize: InitializeRequest): Promise<LiveSession>;
  /**
   * The session for id if the store holds it and it belongs to principal (rebuilt here if this process has
   * no objects for it yet); refreshes its idle timer.
   */
  find(id: string, principal: Principal): Promise<LiveSession | undefined>;
  /**
   * The stored session ended (it expired, or a DELETE reached some replica): closes the copy held here. An
   * expired session's jobs are dropped here; a deleted one's by the replica that took the DELETE.
   */
  close(id: string, why: 'expired' | 'deleted'): Promise<void>;
  /** Closes every copy held here, keeping the stored sessions (shutdown: another process takes them over). */
  closeAll(): Promise<void>;
  /** Every session held here (for reload notifications). */
  all(): IterableIterator<LiveSession>;
  readonly size: number;
}

/** How 2025-era sessions behave, from the `server` and `sessions` config sections. */
export interface LegacySessionSettings {
  /** Most messages in one JSON-RPC batch (native transport). */
  readonly maxBatch: number;
  /** Largest response to one POST (native transport; legacy/nativeHttpTransport.ts). */
  readonly maxResponseBytes: number;
  /** How long a get_info result that unlocked tools waits for the session's re-list (tools/relistWatch.ts). */
  readonly relistWaitMs: number;
  /** After that re-list is answered, how much longer the result waits while the host applies the list. */
  readonly relistGraceMs: number;
  /** The MCP endpoint's path (`server.path`): a rebuilt session replays its initialize there. */
  readonly path: string;
  /** Longest client string a session keeps (`server.max_client_string_chars`). */
  readonly maxClientStringChars: number;
  /** Where unlocks and jobs are kept: per session, or per principal across its sessions (`sessions.scope`). */
  readonly scope: 'session' | 'principal';
}

/** Options of createLiveSessions. */
export interface LiveSessionsOptions {
  /** What each session's MCP server is made of. */
  readonly servers: McpServerOptions;
  /** The stored sessions, shared by replicas with Redis. */
  readonly store: Pick<SessionStore, 'create' | 'touch' | 'delete'>;
  /** A session-scoped session's jobs end with it. */
  readonly jobs: Pick<JobRegistry, 'dropOwner'>;
  readonly metrics: Metrics;
  readonly log: FastifyBaseLogger;
  readonly pickDisclosure: DisclosurePicker;
  /** Notifications for sessions, from any replica, to deliver on the GET streams held here. */
  readonly events: Pick<EventBus<StateEvent>, 'subscribe'>;
  readonly settings: LegacySessionSettings;
  /**
   * Our native streamable HTTP transport (default), or the SDK's: a switch for the tests that hold the two
   * equal (the `sdk-transport` test project), not a user setting.
   */
  readonly transport?: 'native' | 'sdk';
  /**
   * Plain hot requests take the session's direct path (direct/sessionAnswers.ts), which reads skill resources
   * here; absent, every request takes the SDK's path (tests compare the two).
   */
  readonly direct?: { readonly skills: Pick<SkillsService, 'readResource'> };
}

/** Why this process closed a copy itself. */
type Detach = 'expired' | 'deleted' | 'shutdown';

/** The revision the SDK's Server answers an initialize with (the requested one if it speaks it, else its newest). */
const negotiatedRevision = (requested: string): string =>
  SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : (SUPPORTED_PROTOCOL_VERSIONS[0] ?? requested);

/** Creates the session table; a client's DELETE ends a session in the store, everything else only here. */
export function createLiveSessions(options: LiveSessionsOptions): LiveSessions {
  const { store, jobs, metrics, log, settings } = options;
  const live = new Map<string, LiveSession>();
  // Rebuilds in progress, so that concurrent first requests for one session share one rebuild.
  const rebuilding = new Map<string, Promise<LiveSession | undefined>>();
  // Copies this process closed itself, and why: a session that expired or was deleted (its stored record is
  // already gone), or shutdown (the record stays, for the next process or another replica to take over).
  const detached = new Map<string, Detach>();

  const forget = (record: SessionRecord): void => {
    if (!live.delete(record.id)) return;
    const reason = detached.get(record.id);
    detached.delete(record.id);
    if (reason === 'shutdown' || reason === 'deleted') return;
    if (reason === undefined) {
      // The transport closed on the client's DELETE: the session ends for every replica.
      store.delete(record.id).catch((error: unknown) => {
        log.warn({ err: error, session: record.id }, 'session not deleted from the shared store');
      });
    }
    // Jobs of a session-scoped session die with it; principal-scoped jobs outlive one connection.
    if (record.scopeKey === record.id) jobs.dropOwner(record.id);
  };

  // Counted on every session request: bound once (observability/metrics.ts, `counter`).
  const directRequests = metrics.counter('skillgate_session_requests_total', { path: 'direct' });
  const sdkRequests = metrics.counter('skillgate_session_requests_total', { path: 'sdk' });
  const build = async (record: SessionRecord, principal: Principal): Promise<LiveSession> => {
    const audience: Audience = {
      era: 'legacy',
      disclosure: record.disclosure,
      principal,
      scopeKey: record.scopeKey,
      sessionId: record.id,
      elicitsUrl: record.elicitsUrl === true,
    };
    const transport: SessionTransport =
      options.transport === 'sdk'
        ? new NodeStreamableHTTPServerTransport({ sessionIdGenerator: () => record.id })
        : new NativeHttpTransport(record.id, {
            maxBatch: settings.maxBatch,
            maxResponseBytes: settings.maxResponseBytes,
          });
    // onsessionclosed fires only on DELETE; onclose fires on every close, so clean up there.
    transport.onclose = () => forget(record);
    const relist = createRelistWatch({
      waitMs: settings.relistWaitMs,
      graceMs: settings.relistGraceMs,
      onOutcome: (outcome, heldMs) => {
        metrics.inc('skillgate_get_info_holds_total', { outcome });
        if (outcome === 'timeout' && relist.relists === false) {
          log.info(
            { session: audience.sessionId, held_ms: heldMs },
            'session did not re-list after list_changed: its get_info results are no longer held',
          );
        }
      },
    });
    const server = createMcpServer(options.servers, audience, { relist });
    if (transport instanceof NativeHttpTransport && options.direct !== undefined) {
      // The same handlers the server registers (createMcpServer), called without the SDK's per-message work.
      const direct = createSessionAnswers({
        audience,
        listTools: options.servers.tools.listHandler(audience, relist),
        callTool: options.servers.tools.callHandler(audience, relist),
        skills: options.direct.skills,
      });
      transport.direct = (message, ctx) => {
        const answer = direct(message, ctx);
        (answer === undefined ? sdkRequests : directRequests)();
        return answer;
      };
    }
    await server.connect(transport);
    return { record, principal, audience, transport, server };
  };

  const rebuild = async (id: string, principal: Principal): Promise<LiveSession | undefined> => {
    const record = (await store.touch(id))?.record;
    // A session of another principal is reported exactly like an unknown one.
    if (record === undefined || record.principal !== principal.id) return undefined;
    const existing = live.get(id);
    if (existing !== undefined) return existing;
    const session = await build(record, principal);
    try {
      await replayInitialize(session.transport, record, settings.path);
    } catch (error) {
      // Not in the table yet, so closing it forgets nothing and deletes nothing.
      await session.transport.close();
      throw error;
    }
    // Only now: a concurrent request must not reach a transport still being initialized (it waits on
    // `rebuilding` instead).
    live.set(id, session);
    metrics.inc('skillgate_sessions_restored_total');
    log.info({ session: id, principal: principal.name }, 'session taken over from the shared store');
    return session;
  };

  const closeCopy = async (id: string, reason: Detach): Promise<void> => {
    const session = live.get(id);
    if (session === undefined) return;
    detached.set(id, reason);
    await session.transport.close();
  };

  // A notification for a session (or an unlock scope) may come from any replica; only the copy that holds
  // the session's GET stream writes it (the others have no stream to write to), so a client hears it once.
  options.events.subscribe((event) => {
    if (event.kind === 'session_notify') {
      const session = live.get(event.sessionId);
      if (session !== undefined) void session.server.notification(event.message).catch(() => {});
    } else if (event.kind === 'scope_notify') {
      for (const session of live.values()) {
        if (session.audience.scopeKey !== event.scopeKey || session.record.id === event.exceptSessionId)
          continue;
        void session.server.notification(event.message).catch(() => {});
      }
    }
  });

  return {
    async open(principal, initialize) {
      const id = randomUUID();
      // Cut in place: the same object goes on to the session's Server, which keeps it for the session's
      // life, and into the record every replica stores (docs/limits.md, "Client strings").
      initialize.params = boundStrings(initialize.params, settings.maxClientStringChars);
      const client = initialize.params.clientInfo;
      const record: SessionRecord = {
        id,
        principal: principal.id,
        client: { name: client.name, version: client.version },
        protocolVersion: negotiatedRevision(initialize.params.protocolVersion),
        disclosure: options.pickDisclosure(client.name, principal.name),
        scopeKey: settings.scope === 'principal' ? `principal:${principal.id}` : id,
        createdAt: Date.now(),
        // sessions.max_per_principal follows the subject as the other caps do, not each grant set of it.
        ...(principal.budgetId === undefined ? {} : { capKey: principal.budgetId }),
        elicitsUrl: initialize.params.capabilities?.elicitation?.url !== undefined,
      };
      let evicted: SessionRecord | undefined;
      // A session cap (SessionError) becomes 503 in the one error translation (errors/toGatewayError.ts).
      evicted = await store.create(record);
      if (evicted !== undefined) {
        // At sessions.max_per_principal the principal's longest-idle session made room (clients that open a
        // session per command and never DELETE it would otherwise lock their principal out). Its copy here
        // closes like a deleted one; with Redis, every replica closes its copy on the store's notice.
        await closeCopy(evicted.id, 'deleted');
        if (evicted.scopeKey === evicted.id) jobs.dropOwner(evicted.id);
        metrics.inc('skillgate_sessions_evicted_total');
        log.info(
          { session: evicted.id, principal: principal.name, client: evicted.client, for_session: id },
          "session closed: its principal reached sessions.max_per_principal and it was the principal's longest idle",
        );
      }
      const session = await build(record, principal);
      live.set(id, session);
      metrics.inc('skillgate_sessions_created_total');
      log.info(
        { session: id, principal: principal.name, client: record.client, disclosure: record.disclosure },
        'session opened',
      );
      return session;
    },
    async find(id, principal) {
      const session = live.get(id);
      if (session === undefined) {
        const joined = rebuilding.get(id);
        const pending = joined ?? rebuild(id, principal).finally(() => rebuilding.delete(id));
        if (joined === undefined) rebuilding.set(id, pending);
        const rebuilt = await pending;
        if (rebuilt?.principal.id !== principal.id) return undefined;
        // A request that joined another's rebuild reads the store itself: its view starts when it arrived.
        if (joined !== undefined && (await store.touch(id)) === undefined) return undefined;
        return rebuilt;
      }
      if (session.principal.id !== principal.id) return undefined;
      // One read per request: the record (still there, idle time restarted) and its scope's unlocks.
      if ((await store.touch(id)) === undefined) {
        await closeCopy(id, 'expired');
        return undefined;
      }
      return session;
    },
    close: closeCopy,
    async closeAll() {
      await Promise.all([...live.keys()].map((id) => closeCopy(id, 'shutdown')));
    },
    all() {
      return live.values();
    },
    get size() {
      return live.size;
    },
  };
}
