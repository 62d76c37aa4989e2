import type { Handlers } from './composeHandlers.js';
import type { Serving } from './composeServing.js';
import type { ShutdownStep } from './shutdownPlan.js';
import type { Infrastructure } from './startInfrastructure.js';

/** What the gateway's shutdown stops, and the grace its calls in flight get. */
export interface GatewayShutdownOptions {
  readonly infrastructure: Infrastructure;
  readonly handlers: Pick<Handlers, 'inFlight' | 'usage'>;
  readonly serving: Serving;
  /** `server.shutdown_grace_seconds` in ms: how long calls in flight may still run. */
  readonly graceMs: number;
}

// Killed scripts end their calls with a result: how long those results get to reach the clients.
const RESULTS_DEADLINE_MS = 1000;
// A client that opened a connection and never sent on it (an SDK reconnecting its stream) would hold the
// app's close open until the server's header timeout: responses get this long, then what is left is cut.
const CONNECTIONS_DEADLINE_MS = 2000;

/**
 * The gateway's shutdown, in order: stop taking work, let calls in flight finish within the grace period,
 * stop what runs them, flush what is counted, close the streams and apps, then the stores and traces.
 */
export function gatewayShutdown(options: GatewayShutdownOptions): readonly ShutdownStep[] {
  const { infrastructure, handlers, serving } = options;
  const { inFlight } = handlers;
  return [
    { name: 'stop following catalog changes', run: () => serving.following.stop() },
    { name: 'stop following sources', run: async () => infrastructure.sources.stop() },
    {
      // In-flight tool calls get the grace period; after it, their scripts are killed, which ends the calls.
      name: 'drain calls in flight',
      deadlineMs: options.graceMs,
      run: (deadline) => inFlight.drained(deadline),
    },
    { name: 'close jobs', run: () => infrastructure.jobs.close() },
    { name: 'close the script runner', run: () => infrastructure.runner.close() },
    // Calls still waiting on an upstream end with UPSTREAM_UNAVAILABLE; every stdio server is stopped.
    { name: 'close upstreams', run: () => infrastructure.upstreams.close() },
    // The last second's counts, before the store closes.
    { name: 'flush usage', run: () => handlers.usage.close() },
    {
      name: 'deliver the last results',
      deadlineMs: RESULTS_DEADLINE_MS,
      run: (deadline) => inFlight.drained(deadline),
    },
    {
      // The SDK writes a handler's result a few microtasks after the handler returns: let it, then close.
      name: 'let the SDK write results',
      run: () => new Promise((resolve) => setImmediate(resolve)),
    },
    // The stored sessions stay: a restarted process (or another replica) takes them over.
    { name: 'close 2025-era sessions', run: () => serving.sessions.closeAll() },
    { name: 'close 2026-07-28 streams', run: () => serving.modern.close() },
    {
      name: 'close the app',
      deadlineMs: CONNECTIONS_DEADLINE_MS,
      onDeadline: () => serving.app.server.closeAllConnections(),
      run: () => serving.app.close(),
    },
    { name: 'close the metrics app', run: async () => serving.metricsApp?.close() },
    // Before the shared state: the Redis credentials store writes through its connection.
    { name: 'close the credentials store', run: async () => infrastructure.credentials?.close() },
    { name: 'close the shared state', run: () => infrastructure.state.close() },
    // The last spans (this shutdown's requests among them) go out before the process ends.
    { name: 'flush traces', run: async () => infrastructure.tracing?.shutdown() },
  ];
}
