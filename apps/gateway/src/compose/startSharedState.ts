import { createStateBackend } from '@skillgate/state';
import type { FastifyBaseLogger } from 'fastify';
import type { Tracing } from '../observability/tracing.js';
import type { StateSettings } from './stateSettings.js';

const STATE_STARTUP_WAIT_MS = 5000;

/**
 * Each Redis round trip made while a request is served becomes a child span of that request (`redis command`,
 * `redis script`): the shared state's share of a request's time. Outside a request (health pings, expiry
 * sweeps) `inSpan` makes none.
 */
const redisSpans =
  (tracing: Tracing) =>
  <T>(operation: 'command' | 'script', run: () => Promise<T>): Promise<T> =>
    tracing.inSpan(`redis ${operation}`, { 'db.system.name': 'redis', 'db.operation.name': operation }, run);

/** Options of startSharedState. */
export interface StartSharedStateOptions {
  readonly settings: StateSettings;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: FastifyBaseLogger;
  /** Spans of MCP requests (tracing on): each Redis round trip of a request is a child span. */
  readonly tracing?: Tracing;
  /** A stored session ended: it expired, or a DELETE reached some replica (its copies here close). */
  readonly onSessionEnded: (id: string, why: 'expired' | 'deleted') => void;
}

/**
 * What replicas share, from `state.backend`: this process, or Redis (docs/scale-out.md). Redis gets a few
 * seconds at start-up, so a replica does not answer its first requests 503; after that the gateway starts
 * anyway and is not ready until Redis is reachable.
 */
export async function startSharedState(
  options: StartSharedStateOptions,
): Promise<ReturnType<typeof createStateBackend>> {
  const { settings, env, log } = options;
  const state = createStateBackend({
    backend: settings.backend,
    redisUrl: env[settings.redisUrlEnv],
    keyPrefix: settings.keyPrefix,
    sessions: {
      ...settings.sessions,
      onExpire: (session) => {
        log.info({ session: session.id }, 'session expired');
        options.onSessionEnded(session.id, 'expired');
      },
      // A DELETE on any replica ends the session's copies on every replica (their GET streams end).
      onDeleted: (session) => options.onSessionEnded(session.id, 'deleted'),
    },
    jobs: settings.jobs,
    rateLimit: settings.rateLimit,
    onError: (error) => log.warn({ err: error }, 'shared state error'),
    ...(options.tracing === undefined ? {} : { roundTrip: redisSpans(options.tracing) }),
  });
  if (!(await state.waitUntilReady(STATE_STARTUP_WAIT_MS))) {
    log.warn('shared state (Redis) is not reachable yet: requests get 503 and /readyz is false until it is');
  }
  return state;
}
