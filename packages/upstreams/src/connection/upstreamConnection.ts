import { type Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { UpstreamSnapshot } from '@skillgate/skills';
import { createOversizeGuard } from '../calls/oversizeGuard.js';
import { createProgressRelay } from '../calls/progressRelay.js';
import { callUpstreamTool } from '../calls/upstreamCall.js';
import { describeError } from '../describeError.js';
import type { DirectToolCaller, UpstreamCallOptions, UpstreamCallResult, UpstreamLogger } from '../types.js';
import { UpstreamsError } from '../upstreamsError.js';
import { createExposedTools } from './exposedTools.js';
import { isConnectionLoss } from './isConnectionLoss.js';
import { createPrincipalSessions } from './principalSessions.js';
import { createRelistThrottle } from './relistThrottle.js';
import { createRetrySchedule } from './retrySchedule.js';
import { createUpstreamClient, serverInfoOf } from './upstreamClient.js';
import { upstreamSlots } from './upstreamSlots.js';
import { createUpstreamStatus } from './upstreamStatus.js';
import { createUpstreamTransport, type UpstreamTransportOptions } from './upstreamTransport.js';
import { createUpstreamWire } from './upstreamWire.js';

/** What one connection needs from the pool (the transport's part is passed on to each attempt's transport). */
export interface UpstreamConnectionOptions
  extends Pick<
    UpstreamTransportOptions,
    'definition' | 'env' | 'cwd' | 'bwrap' | 'guard' | 'stderrBytesPerMinute'
  > {
  readonly logger: UpstreamLogger | undefined;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Called when this upstream's state or tools changed. */
  readonly changed: () => void;
  /** A `perCaller` upstream's listing headers, asked at each connect attempt (UpstreamPoolOptions). */
  readonly connectionHeaders?: () => Promise<Readonly<Record<string, string>> | undefined>;
}

/** One upstream: its connection, retries, tool list and calls. */
export interface UpstreamConnection {
  /** Connects; resolves after the first attempt, successful or not. */
  start(): Promise<void>;
  snapshot(): UpstreamSnapshot;
  call(
    tool: string,
    args: Record<string, unknown>,
    options: UpstreamCallOptions,
  ): Promise<UpstreamCallResult>;
  close(): Promise<void>;
}

// Starting a server (npx, a JIT) may take longer than one call is allowed to.
const MIN_CONNECT_TIMEOUT_MS = 30_000;
// Three answers over max_result_bytes from one tool to one principal within a minute: that principal's calls
// of the tool are refused for 30 s (docs/limits.md, "Answers of a call").
const OVERSIZE_REFUSAL = { strikes: 3, windowMs: 60_000, refuseMs: 30_000, maxEntries: 10_000 } as const;
// Principals with their own session on one 2025-era per-caller upstream at once (principalSessions.ts).
const MAX_PRINCIPAL_SESSIONS = 256;
// An upstream that changes its list continuously is listed again at most this often: each relisting parses
// every tool and rebuilds the catalog, and a list changed every 120 ms cost the other callers' p99 2.5×
// (docs/upstreams.md, "A list that keeps changing").
const RELIST_MIN_INTERVAL_MS = 1000;

/**
 * Creates the connection of one upstream (not started). It owns the lifecycle: connect and handshake, the
 * first tools/list and relisting on list_changed, going down on a lost connection and retrying with backoff,
 * close. A generation number ties every callback to the attempt it came from, so a late event of an old
 * client never changes the current one.
 */
export function createUpstreamConnection(options: UpstreamConnectionOptions): UpstreamConnection {
  const { definition } = options;
  const log = (level: 'info' | 'warn', message: string, fields: Record<string, unknown> = {}): void => {
    options.logger?.[level]({ upstream: definition.id, ...fields }, message);
  };
  const exposedTools = createExposedTools(definition.tools, definition.listing);
  const slots = upstreamSlots(definition);
  const status = createUpstreamStatus({ definition, changed: options.changed });
  const oversize = createOversizeGuard(OVERSIZE_REFUSAL);
  const progress = createProgressRelay({
    handlerFailed: (error) => log('warn', 'progress handler failed', { error: describeError(error) }),
  });
  const retry = createRetrySchedule({ ...options.backoff, run: () => void connect() });
  let client: Client | undefined;
  // HTTP upstreams: the tools/call path of the connected client's session, and the tools it must not take.
  let direct: DirectToolCaller | undefined;
  let sdkOnly: ReadonlySet<string> = new Set();
  // The client of a connect still under way, so close() can end it (and its stdio server) too.
  let pending: Client | undefined;
  let generation = 0;
  let closing = false;
  const relisting = createRelistThrottle(RELIST_MIN_INTERVAL_MS);
  const connectTimeoutMs = Math.max(definition.timeoutSeconds * 1000, MIN_CONNECT_TIMEOUT_MS);
  const wire = createUpstreamWire({ definition, env: options.env, clientInfo: options.clientInfo, progress });
  const transportOf = transportFactory(options, wire, log);
  // A per-caller upstream's listing credential: what the last connect attempt was made with.
  let listingHeaders: Readonly<Record<string, string>> | undefined;
  // Whether the current connection has a session (2025 era): then each principal calls on its own.
  let sessionBased = false;
  const principalSessions = createPrincipalSessions({
    max: MAX_PRINCIPAL_SESSIONS,
    open: async (headers) => {
      const own = createUpstreamClient({
        definition,
        clientInfo: options.clientInfo,
        toolsChanged: () => undefined,
      });
      await own.connect(await transportOf(headers), { timeout: connectTimeoutMs });
      progress.attach(own);
      return own;
    },
    directOf: (own, headers) => wire.directCaller(own, headers),
  });

  // The connection broke or could not be made: down, keep the last tools, try again after the backoff.
  const fail = (gen: number, reason: string): void => {
    if (gen !== generation || closing) return;
    generation += 1;
    const old = client;
    client = undefined;
    direct = undefined;
    void old?.close().catch(() => undefined);
    void principalSessions.close();
    log('warn', 'upstream down', { error: reason, retryInMs: retry.nextDelayMs });
    status.update({ state: 'down', lastError: reason });
    retry.schedule();
  };

  // list_changed: list again (bypassing the client's cache); a failed relisting means a broken connection.
  const refreshTools = async (gen: number, current: Client): Promise<void> => {
    try {
      const listed = await current.listTools(undefined, { cacheMode: 'bypass' });
      if (gen !== generation) return;
      sdkOnly = headerMirroredTools(listed.tools);
      status.update(exposedTools(listed.tools));
    } catch (error) {
      fail(gen, `tools/list failed: ${describeError(error)}`);
    }
  };

  const connect = async (): Promise<void> => {
    if (closing) return;
    generation += 1;
    const gen = generation;
    if (status.state !== 'connecting') status.update({ state: 'connecting' });
    let current: Client | undefined;
    try {
      // A per-caller upstream lists with its listing credential (none at all when there is none yet).
      listingHeaders =
        definition.perCaller === true ? ((await options.connectionHeaders?.()) ?? {}) : undefined;
      const transport = await transportOf(listingHeaders);
      current = createUpstreamClient({
        definition,
        clientInfo: options.clientInfo,
        toolsChanged: () =>
          relisting.request(() => {
            const live = client;
            if (live === undefined || gen !== generation) return false;
            void refreshTools(gen, live);
            return true;
          }),
      });
      pending = current;
      // The transport's last error is why it closed: "connection closed" alone hid every real cause.
      let lastTransportError: string | undefined;
      current.onclose = () =>
        fail(
          gen,
          lastTransportError === undefined ? 'connection closed' : `connection closed: ${lastTransportError}`,
        );
      current.onerror = (error) => {
        lastTransportError = describeError(error);
        if (isConnectionLoss(error)) fail(gen, lastTransportError);
      };
      await current.connect(transport, { timeout: connectTimeoutMs });
      pending = undefined;
      progress.attach(current);
      if (gen !== generation || closing) {
        await current.close().catch(() => undefined);
        return;
      }
      client = current;
      direct = wire.directCaller(current, listingHeaders);
      sessionBased =
        current.transport instanceof StreamableHTTPClientTransport &&
        current.transport.sessionId !== undefined;
      const listed = await current.listTools(undefined, { timeout: connectTimeoutMs });
      if (gen !== generation) return;
      sdkOnly = headerMirroredTools(listed.tools);
      retry.connected();
      log('info', 'upstream ready', {
        tools: listed.tools.length,
        protocol: current.getNegotiatedProtocolVersion(),
      });
      status.update({
        state: 'ready',
        lastError: undefined,
        instructions: current.getInstructions(),
        serverInfo: serverInfoOf(current),
        ...exposedTools(listed.tools),
      });
      // A modern connection hears list changes on a subscriptions/listen stream; its loss is the server's.
      void current.autoOpenedSubscription?.closed.then((how) => {
        if (how === 'remote') fail(gen, 'notification stream lost');
      });
    } catch (error) {
      if (error instanceof UpstreamsError && error.code === 'ENV_NOT_SET') {
        // Retrying cannot help until the gateway restarts with the variable set.
        generation += 1;
        log('warn', 'upstream not started', { error: error.message });
        status.update({ state: 'down', lastError: error.message });
        return;
      }
      if (pending === current) pending = undefined;
      if (current !== undefined && client !== current) void current.close().catch(() => undefined);
      fail(gen, `connect failed: ${describeError(error)}`);
    }
  };

  return {
    start: connect,
    snapshot: status.snapshot,
    async call(tool, args, callOptions) {
      // The generation of the client the call goes to: only its loss may take the upstream down.
      const gen = generation;
      const context = {
        definition,
        status,
        client,
        direct: sdkOnly.has(tool) ? undefined : direct,
        slots,
        progress,
        oversize,
        lost: (reason: string) => fail(gen, reason),
      };
      const { headers } = callOptions;
      // The listing credential is never a caller's: a per-caller upstream's call without its own is refused.
      if (definition.perCaller === true && headers === undefined) {
        return {
          ok: false,
          reason: 'UPSTREAM_ERROR',
          message: `${definition.id} is called with each caller's own credential, and this call has none`,
        };
      }
      // A caller's own credential on a session-keeping upstream goes on that caller's own session.
      if (headers === undefined || !sessionBased || context.direct === undefined || client === undefined) {
        return callUpstreamTool(context, { ...callOptions, tool, args });
      }
      return principalSessions.call(
        context,
        { ...callOptions, tool, args },
        callOptions.principal ?? '',
        headers,
      );
    },
    async close() {
      closing = true;
      retry.stop();
      relisting.cancel();
      generation += 1;
      const old = [client, pending];
      client = undefined;
      direct = undefined;
      pending = undefined;
      slots.close();
      await Promise.all([...old.map((c) => c?.close().catch(() => undefined)), principalSessions.close()]);
      wire.close();
    },
  };
}

/** A connect attempt's transport; `headers` instead of headers_from_env (a listing or a principal's credential). */
function transportFactory(
  options: UpstreamConnectionOptions,
  wire: ReturnType<typeof createUpstreamWire>,
  log: (level: 'info' | 'warn', message: string, fields?: Record<string, unknown>) => void,
) {
  const { definition } = options;
  return (headers: Readonly<Record<string, string>> | undefined) =>
    createUpstreamTransport({
      definition,
      env: options.env,
      cwd: options.cwd,
      bwrap: options.bwrap,
      guard: options.guard,
      http: wire.http,
      maxMessageBytes: wire.maxMessageBytes,
      stderrBytesPerMinute: options.stderrBytesPerMinute,
      stderrLine: (line) => log('info', `[${definition.id}] ${line}`, { stderr: true }),
      ...(headers === undefined ? {} : { headers }),
    });
}

// Tools whose input schema declares `x-mcp-header` parameters: on a 2026-07-28 connection the SDK client
// mirrors those arguments into Mcp-Param-* headers (SEP-2243), so their calls keep the SDK's path.
function headerMirroredTools(tools: readonly { name: string; inputSchema?: unknown }[]): ReadonlySet<string> {
  return new Set(
    tools
      .filter((tool) => JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"'))
      .map((t) => t.name),
  );
}
