import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Client,
  PROTOCOL_VERSION_META_KEY,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { createSlotPool } from '@skillgate/runner';
import type { UpstreamSnapshot } from '@skillgate/skills';
import { createHttpToolCaller } from '../calls/httpToolCall.js';
import { createOversizeGuard } from '../calls/oversizeGuard.js';
import { createProgressRelay } from '../calls/progressRelay.js';
import { createStdioToolCaller } from '../calls/stdioToolCall.js';
import { callUpstreamTool } from '../calls/upstreamCall.js';
import { describeError } from '../describeError.js';
import type { DirectToolCaller, UpstreamCallOptions, UpstreamCallResult, UpstreamLogger } from '../types.js';
import { UpstreamsError } from '../upstreamsError.js';
import { type CallPoster, createCallPoster } from '../wire/callPoster.js';
import { configuredHeaders } from '../wire/configuredHeaders.js';
import { createNodeFetch, type NodeFetch } from '../wire/nodeFetch.js';
import { createExposedTools } from './exposedTools.js';
import { isConnectionLoss } from './isConnectionLoss.js';
import { createRetrySchedule } from './retrySchedule.js';
import { createUpstreamClient, serverInfoOf, UPSTREAM_CLIENT_CAPABILITIES } from './upstreamClient.js';
import { createUpstreamStatus } from './upstreamStatus.js';
import { createUpstreamTransport, type UpstreamTransportOptions } from './upstreamTransport.js';

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

// Calls waiting for a slot of one upstream; past it a call is refused at once (docs/limits.md).
const MAX_QUEUED_CALLS = 1024;

// Starting a server (npx, a JIT) may take longer than one call is allowed to.
const MIN_CONNECT_TIMEOUT_MS = 30_000;
// Room for the JSON-RPC envelope around a result of max_result_bytes in one HTTP answer or event.
const CALL_ENVELOPE_BYTES = 64 * 1024;
// Three answers over max_result_bytes from one tool to one principal within a minute: that principal's calls
// of the tool are refused for 30 s (docs/limits.md, "Answers of a call").
const OVERSIZE_REFUSAL = { strikes: 3, windowMs: 60_000, refuseMs: 30_000, maxEntries: 10_000 } as const;
// A call's event stream carries its answer and notifications (progress): a few answers' worth in all.
const STREAM_ANSWERS = 4;
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
  // The runner's slot pool: a per-principal share, so one tenant cannot hold every slot of the upstream;
  // waiting for a slot counts against the call's timeout.
  const slots = createSlotPool({
    maxConcurrent: definition.maxConcurrent,
    maxConcurrentPerPrincipal: Math.min(definition.maxConcurrentPerPrincipal, definition.maxConcurrent),
    maxQueue: MAX_QUEUED_CALLS,
    queueTimeoutMs: definition.timeoutSeconds * 1000,
    wording: {
      runs: `calls to upstream ${definition.id}`,
      maxKey: 'max_concurrent',
      perPrincipalKey: 'max_concurrent_per_principal',
    },
  });
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
  // The one relisting waiting for its turn, and when the last one started.
  let relistTimer: NodeJS.Timeout | undefined;
  let lastRelistAt = Number.NEGATIVE_INFINITY;
  const connectTimeoutMs = Math.max(definition.timeoutSeconds * 1000, MIN_CONNECT_TIMEOUT_MS);
  // A result may be escaped on the wire; past this the server is broken, not just verbose.
  const maxMessageBytes = Math.max(definition.maxResultBytes * 4, 16 * 1024 * 1024);
  // HTTP upstreams: one set of kept-alive connections for the connection's life.
  const http: NodeFetch | undefined =
    definition.url === undefined
      ? undefined
      : createNodeFetch({
          maxBodyBytes: maxMessageBytes,
          maxCallAnswerBytes: definition.maxResultBytes + CALL_ENVELOPE_BYTES,
        });
  // Its tools/call POSTs (httpToolCall.ts): their own kept-alive connections, read without streams.
  const poster: CallPoster | undefined = definition.url === undefined ? undefined : createCallPoster();

  // The connection broke or could not be made: down, keep the last tools, try again after the backoff.
  const fail = (gen: number, reason: string): void => {
    if (gen !== generation || closing) return;
    generation += 1;
    const old = client;
    client = undefined;
    direct = undefined;
    void old?.close().catch(() => undefined);
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
      const transport = await createUpstreamTransport({
        definition,
        env: options.env,
        cwd: options.cwd,
        bwrap: options.bwrap,
        guard: options.guard,
        http,
        maxMessageBytes,
        stderrBytesPerMinute: options.stderrBytesPerMinute,
        stderrLine: (line) => log('info', `[${definition.id}] ${line}`, { stderr: true }),
      });
      current = createUpstreamClient({
        definition,
        clientInfo: options.clientInfo,
        toolsChanged: () => {
          // Changes while a relisting waits are seen by that relisting.
          if (relistTimer !== undefined) return;
          const wait = Math.max(0, lastRelistAt + RELIST_MIN_INTERVAL_MS - performance.now());
          relistTimer = setTimeout(() => {
            relistTimer = undefined;
            const live = client;
            if (live === undefined || gen !== generation) return;
            lastRelistAt = performance.now();
            void refreshTools(gen, live);
          }, wait);
        },
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
      direct = directCaller(current);
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

  // The direct tools/call path of a connected HTTP client: its session, era and the configured headers.
  const directCaller = (connected: Client): DirectToolCaller | undefined => {
    const transport = connected.transport;
    const version = connected.getNegotiatedProtocolVersion();
    // A stdio server: taken after the progress relay, so progress still reaches its callers first.
    if (definition.url === undefined)
      return transport === undefined ? undefined : createStdioToolCaller(transport);
    if (poster === undefined || version === undefined) return undefined;
    if (!(transport instanceof StreamableHTTPClientTransport)) return undefined;
    return createHttpToolCaller({
      url: new URL(definition.url),
      poster,
      headers: configuredHeaders(definition, options.env),
      protocolVersion: version,
      sessionId: transport.sessionId,
      envelope:
        connected.getProtocolEra() === 'modern'
          ? {
              [PROTOCOL_VERSION_META_KEY]: version,
              [CLIENT_INFO_META_KEY]: { ...options.clientInfo },
              [CLIENT_CAPABILITIES_META_KEY]: UPSTREAM_CLIENT_CAPABILITIES,
            }
          : undefined,
      maxAnswerBytes: definition.maxResultBytes + CALL_ENVELOPE_BYTES,
      maxStreamBytes: (definition.maxResultBytes + CALL_ENVELOPE_BYTES) * STREAM_ANSWERS,
      onMessage: (message) => progress.deliver(message),
    });
  };

  return {
    start: connect,
    snapshot: status.snapshot,
    call(tool, args, callOptions) {
      // The generation of the client the call goes to: only its loss may take the upstream down.
      const gen = generation;
      return callUpstreamTool(
        {
          definition,
          status,
          client,
          direct: sdkOnly.has(tool) ? undefined : direct,
          slots,
          progress,
          oversize,
          lost: (reason) => fail(gen, reason),
        },
        { ...callOptions, tool, args },
      );
    },
    async close() {
      closing = true;
      retry.stop();
      clearTimeout(relistTimer);
      generation += 1;
      const old = [client, pending];
      client = undefined;
      direct = undefined;
      pending = undefined;
      slots.close();
      await Promise.all(old.map((c) => c?.close().catch(() => undefined)));
      http?.close();
      poster?.close();
    },
  };
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
