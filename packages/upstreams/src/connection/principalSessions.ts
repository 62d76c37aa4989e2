import type { Client } from '@modelcontextprotocol/client';
import {
  callUpstreamTool,
  type UpstreamCallContext,
  type UpstreamCallRequest,
} from '../calls/upstreamCall.js';
import { describeError } from '../describeError.js';
import type { DirectToolCaller, UpstreamCallResult } from '../types.js';

/** One principal's own session with a 2025-era upstream. */
interface PrincipalSession {
  readonly client: Client;
  readonly direct: DirectToolCaller;
}

/** Options of createPrincipalSessions. */
export interface PrincipalSessionsOptions {
  /** Opens a client whose handshake carries `headers` (the principal's credential). */
  readonly open: (headers: Readonly<Record<string, string>>) => Promise<Client>;
  /** The direct call path of an opened client, sending `headers` unless a call brings its own. */
  readonly directOf: (
    client: Client,
    headers: Readonly<Record<string, string>>,
  ) => DirectToolCaller | undefined;
  /** Sessions kept at most; the least recently used is closed past it. */
  readonly max: number;
}

/** Each principal's own session with one upstream that keeps sessions (docs/credentials.md, "Never passed on"). */
export interface PrincipalSessions {
  /** The principal's session's call path, opened with `headers` the first time. */
  directFor(principal: string, headers: Readonly<Record<string, string>>): Promise<DirectToolCaller>;
  /** Closes one principal's session (it was lost, or its credential refused). */
  drop(principal: string): void;
  /**
   * Calls on the principal's own session (opened with `headers` if needed): its loss is that principal's alone
   * (reopened on its next call), and a refused credential closes it.
   */
  call(
    context: UpstreamCallContext,
    request: UpstreamCallRequest,
    principal: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<UpstreamCallResult>;
  /** Closes every session (the connection is going down or closing). */
  close(): Promise<void>;
}

/**
 * A 2025-era upstream binds a session to whoever opened it: in a per-principal mode each principal calls on a
 * session its own credential opened, never on one another principal (or the gateway's listing credential)
 * opened. Bounded: past `max` principals the least recently used session is closed (DELETE), and reopened if
 * that principal calls again.
 */
export function createPrincipalSessions(options: PrincipalSessionsOptions): PrincipalSessions {
  const sessions = new Map<string, Promise<PrincipalSession>>();
  const closeOne = (session: Promise<PrincipalSession>): void => {
    void session.then(
      ({ client }) => client.close().catch(() => undefined),
      () => undefined,
    );
  };
  const drop = (principal: string): void => {
    const session = sessions.get(principal);
    if (session === undefined) return;
    sessions.delete(principal);
    closeOne(session);
  };
  const self: PrincipalSessions = {
    async directFor(principal, headers) {
      let session = sessions.get(principal);
      if (session !== undefined) {
        // Most recently used last.
        sessions.delete(principal);
        sessions.set(principal, session);
      } else {
        session = (async () => {
          const client = await options.open(headers);
          const direct = options.directOf(client, headers);
          if (direct === undefined) {
            await client.close().catch(() => undefined);
            throw new Error('the upstream session has no direct call path');
          }
          return { client, direct };
        })();
        sessions.set(principal, session);
        // A failed open is not kept: the next call tries again.
        session.catch(() => {
          if (sessions.get(principal) === session) sessions.delete(principal);
        });
        for (const [oldest, old] of sessions) {
          if (sessions.size <= options.max) break;
          sessions.delete(oldest);
          closeOne(old);
        }
      }
      return (await session).direct;
    },
    drop,
    async close() {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.all(
        all.map((session) =>
          session.then(
            ({ client }) => client.close().catch(() => undefined),
            () => undefined,
          ),
        ),
      );
    },
    async call(context, request, principal, headers) {
      let own: DirectToolCaller;
      try {
        own = await self.directFor(principal, headers);
      } catch (error) {
        return {
          ok: false,
          reason: 'UPSTREAM_UNAVAILABLE',
          message: `no session with ${context.definition.id} for this caller: ${describeError(error)}`,
        };
      }
      const outcome = await callUpstreamTool(
        { ...context, direct: own, lost: () => drop(principal) },
        request,
      );
      if (!outcome.ok && outcome.reason === 'UPSTREAM_UNAUTHORIZED') drop(principal);
      return outcome;
    },
  };
  return self;
}
