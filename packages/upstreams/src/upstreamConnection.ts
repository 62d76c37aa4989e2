import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from '@modelcontextprotocol/client';
import type { ProcessGuard } from '@skillgate/runner';
import picomatch from 'picomatch';
import { type CallSlots, createCallSlots } from './callSlots.js';
import { createNodeFetch, type NodeFetch, ResponseTooLargeError } from './nodeFetch.js';
import { createStderrLines } from './stderrLines.js';
import { createStdioServerTransport } from './stdioServerTransport.js';
import type {
  UpstreamCallOptions,
  UpstreamCallResult,
  UpstreamDefinition,
  UpstreamLogger,
  UpstreamProgress,
  UpstreamSnapshot,
  UpstreamState,
  UpstreamTool,
} from './types.js';

/** What one connection needs from the pool. */
export interface UpstreamConnectionOptions {
  readonly definition: UpstreamDefinition;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly guard: () => Promise<ProcessGuard>;
  readonly logger: UpstreamLogger | undefined;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly stderrBytesPerMinute: number;
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

// Scrubbed environment of a stdio server: these from the gateway, plus env_from.
const INHERITED_ENV = ['PATH', 'HOME', 'LANG'] as const;
// Starting a server (npx, a JIT) may take longer than one call is allowed to.
const MIN_CONNECT_TIMEOUT_MS = 30_000;
// Most pages of one tools/list walk; a server whose cursor never converges is broken.
const MAX_LIST_PAGES = 100;

/** Creates the connection of one upstream (not started). */
export function createUpstreamConnection(options: UpstreamConnectionOptions): UpstreamConnection {
  const { definition } = options;
  const exposed = picomatch([...definition.tools]);
  const slots: CallSlots = createCallSlots(definition.maxConcurrent);
  let state: UpstreamState = 'connecting';
  let lastError: string | undefined;
  let tools: readonly UpstreamTool[] = [];
  let toolNames = new Set<string>();
  let instructions: string | undefined;
  let serverInfo: UpstreamSnapshot['serverInfo'];
  let client: Client | undefined;
  // The client of a connect still under way, so close() can end it (and its stdio server) too.
  let pending: Client | undefined;
  let generation = 0;
  let closing = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = options.backoff.initialMs;
  let cached: UpstreamSnapshot | undefined;
  // Progress of calls in flight, by the token this connection sent (never the caller's own token).
  const progress = new Map<string, (progress: UpstreamProgress) => void>();
  let progressSeq = 0;
  const connectTimeoutMs = Math.max(definition.timeoutSeconds * 1000, MIN_CONNECT_TIMEOUT_MS);
  // A result may be escaped on the wire; past this the server is broken, not just verbose.
  const maxMessageBytes = Math.max(definition.maxResultBytes * 4, 16 * 1024 * 1024);
  // HTTP upstreams: one set of kept-alive connections for the connection's life.
  const http: NodeFetch | undefined =
    definition.url === undefined ? undefined : createNodeFetch({ maxBodyBytes: maxMessageBytes });

  // The client hands notifications to their handlers a microtask after it reads them but settles a response
  // at once, dropping the progress of a call whose result came in the same read (typescript-sdk issue
  // #2580). Progress of our own tokens is taken off the transport as it is read, so every step reaches the
  // caller, in order, before the result does.
  const interceptProgress = (current: Client): void => {
    const transport = current.transport;
    if (transport === undefined) return;
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const step = progressOf(message);
      const handler = step === undefined ? undefined : progress.get(step.token);
      if (step === undefined || handler === undefined) {
        deliver?.(message, extra);
        return;
      }
      try {
        handler(step.progress);
      } catch (error) {
        log('warn', 'progress handler failed', { error: describe(error) });
      }
    };
  };

  const log = (level: 'info' | 'warn', message: string, fields: Record<string, unknown> = {}): void => {
    options.logger?.[level]({ upstream: definition.id, ...fields }, message);
  };

  const update = (next: {
    state?: UpstreamState;
    lastError?: string | undefined;
    tools?: readonly UpstreamTool[];
  }) => {
    const before = cached ?? snapshot();
    if (next.state !== undefined) state = next.state;
    if ('lastError' in next) lastError = next.lastError;
    if (next.tools !== undefined) {
      tools = next.tools;
      toolNames = new Set(tools.map((t) => t.name));
    }
    cached = undefined;
    const after = snapshot();
    if (
      before.state !== after.state ||
      before.lastError !== after.lastError ||
      before.instructions !== after.instructions ||
      JSON.stringify(before.tools) !== JSON.stringify(after.tools)
    ) {
      options.changed();
    }
  };

  function snapshot(): UpstreamSnapshot {
    cached ??= Object.freeze({
      id: definition.id,
      skill: definition.skill,
      ...(definition.description === undefined ? {} : { description: definition.description }),
      state,
      ...(lastError === undefined ? {} : { lastError }),
      ...(instructions === undefined ? {} : { instructions }),
      ...(serverInfo === undefined ? {} : { serverInfo }),
      tools,
    });
    return cached;
  }

  // The connection broke or could not be made: down, keep the last tools, try again after the backoff.
  const fail = (gen: number, reason: string): void => {
    if (gen !== generation || closing) return;
    generation += 1;
    const old = client;
    client = undefined;
    void old?.close().catch(() => undefined);
    log('warn', 'upstream down', { error: reason, retryInMs: delay });
    update({ state: 'down', lastError: reason });
    schedule();
  };

  const schedule = (): void => {
    if (closing || retryTimer !== undefined) return;
    const wait = delay;
    delay = Math.min(delay * 2, options.backoff.maxMs);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, wait);
    retryTimer.unref();
  };

  const refreshTools = async (gen: number, current: Client): Promise<void> => {
    try {
      const listed = await current.listTools(undefined, { cacheMode: 'bypass' });
      if (gen !== generation) return;
      update({ tools: narrow(listed.tools) });
    } catch (error) {
      fail(gen, `tools/list failed: ${describe(error)}`);
    }
  };

  const narrow = (listed: readonly Tool[]): readonly UpstreamTool[] =>
    Object.freeze(listed.filter((tool) => exposed(tool.name)).map(toUpstreamTool));

  const transportFor = async (): Promise<Transport> => {
    if (definition.url !== undefined) {
      const headers: Record<string, string> = {};
      for (const [header, variable] of Object.entries(definition.headersFromEnv ?? {})) {
        const value = options.env[variable];
        if (value === undefined || value === '')
          throw new ConfigProblem(`environment variable ${variable} is not set (header ${header})`);
        headers[header] = value;
      }
      return new StreamableHTTPClientTransport(new URL(definition.url), {
        requestInit: { headers },
        ...(http === undefined ? {} : { fetch: http.fetch }),
      });
    }
    const env: Record<string, string> = {};
    for (const name of INHERITED_ENV) {
      const value = options.env[name];
      if (value !== undefined) env[name] = value;
    }
    for (const [name, variable] of Object.entries(definition.envFrom ?? {})) {
      const value = options.env[variable];
      if (value === undefined)
        throw new ConfigProblem(`environment variable ${variable} is not set (env_from ${name})`);
      env[name] = value;
    }
    const stderr = createStderrLines({
      bytesPerMinute: options.stderrBytesPerMinute,
      log: (line) => log('info', `[${definition.id}] ${line}`, { stderr: true }),
    });
    const transport = createStdioServerTransport({
      command: definition.command ?? [],
      env,
      cwd: options.cwd,
      guard: await options.guard(),
      maxMessageBytes,
      onStderr: stderr,
    });
    return transport;
  };

  const connect = async (): Promise<void> => {
    if (closing) return;
    generation += 1;
    const gen = generation;
    if (state !== 'connecting') update({ state: 'connecting' });
    let current: Client | undefined;
    try {
      const transport = await transportFor();
      current = new Client(
        { name: options.clientInfo.name, version: options.clientInfo.version },
        {
          capabilities: {},
          listMaxPages: MAX_LIST_PAGES,
          // HTTP upstreams of either era: probe with server/discover, fall back to initialize. A stdio
          // server that exits on an unknown first request would be lost to the probe, so stdio opens with
          // initialize (every 2025- and 2026-era server answers it).
          ...(definition.url === undefined ? {} : { versionNegotiation: { mode: 'auto' as const } }),
          listChanged: {
            tools: {
              autoRefresh: false,
              debounceMs: 50,
              onChanged: () => {
                const live = client;
                if (live !== undefined && gen === generation) void refreshTools(gen, live);
              },
            },
          },
        },
      );
      pending = current;
      current.onclose = () => fail(gen, 'connection closed');
      current.onerror = (error) => {
        if (isConnectionLoss(error)) fail(gen, describe(error));
      };
      await current.connect(transport, { timeout: connectTimeoutMs });
      pending = undefined;
      interceptProgress(current);
      if (gen !== generation || closing) {
        await current.close().catch(() => undefined);
        return;
      }
      client = current;
      const listed = await current.listTools(undefined, { timeout: connectTimeoutMs });
      if (gen !== generation) return;
      instructions = current.getInstructions();
      const info = current.getServerVersion();
      serverInfo =
        info === undefined
          ? undefined
          : Object.freeze({
              name: info.name,
              ...(info.title === undefined ? {} : { title: info.title }),
              ...(info.version === undefined ? {} : { version: info.version }),
            });
      delay = options.backoff.initialMs;
      log('info', 'upstream ready', {
        tools: listed.tools.length,
        protocol: current.getNegotiatedProtocolVersion(),
      });
      update({ state: 'ready', lastError: undefined, tools: narrow(listed.tools) });
      // A modern connection hears list changes on a subscriptions/listen stream; its loss is the server's.
      void current.autoOpenedSubscription?.closed.then((how) => {
        if (how === 'remote') fail(gen, 'notification stream lost');
      });
    } catch (error) {
      if (error instanceof ConfigProblem) {
        // Retrying cannot help until the gateway restarts with the variable set.
        generation += 1;
        log('warn', 'upstream not started', { error: error.message });
        update({ state: 'down', lastError: error.message });
        return;
      }
      if (pending === current) pending = undefined;
      if (current !== undefined && client !== current) void current.close().catch(() => undefined);
      fail(gen, `connect failed: ${describe(error)}`);
    }
  };

  return {
    start: connect,
    snapshot,
    async call(tool, args, callOptions) {
      const live = client;
      if (state !== 'ready' || live === undefined) {
        return unavailable(
          `upstream ${definition.id} is ${state}${lastError === undefined ? '' : `: ${lastError}`}`,
        );
      }
      if (!toolNames.has(tool)) {
        return {
          ok: false,
          reason: 'UPSTREAM_ERROR',
          message: `upstream ${definition.id} has no tool ${tool}`,
        };
      }
      const timeoutMs = definition.timeoutSeconds * 1000;
      const deadline = Date.now() + timeoutMs;
      const release = await slots.acquire(deadline, callOptions.signal);
      if (release === undefined) {
        if (callOptions.signal?.aborted === true) return cancelled();
        return {
          ok: false,
          reason: 'UPSTREAM_TIMEOUT',
          message: `no free slot of upstream ${definition.id} within ${definition.timeoutSeconds} s (max_concurrent ${definition.maxConcurrent})`,
        };
      }
      const gen = generation;
      const onProgress = callOptions.onProgress;
      const progressToken = onProgress === undefined ? undefined : `skillgate-${++progressSeq}`;
      if (progressToken !== undefined && onProgress !== undefined) progress.set(progressToken, onProgress);
      try {
        const result = await live.callTool(
          {
            name: tool,
            arguments: args,
            ...(progressToken === undefined ? {} : { _meta: { progressToken } }),
          },
          {
            timeout: Math.max(1, deadline - Date.now()),
            ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }),
          },
        );
        const size = Buffer.byteLength(JSON.stringify(result));
        if (size > definition.maxResultBytes) {
          return {
            ok: false,
            reason: 'RESULT_TOO_LARGE',
            message: `the result of ${definition.id}/${tool} has ${size} bytes, over max_result_bytes ${definition.maxResultBytes}`,
          };
        }
        const content = Array.isArray(result.content) ? (result.content as unknown[]) : [];
        return {
          ok: true,
          result: {
            content,
            ...(result.structuredContent === undefined
              ? {}
              : { structuredContent: result.structuredContent }),
            ...(result.isError === true ? { isError: true } : {}),
          },
        };
      } catch (error) {
        if (callOptions.signal?.aborted === true) return cancelled();
        if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
          return {
            ok: false,
            reason: 'UPSTREAM_TIMEOUT',
            message: `upstream ${definition.id} did not answer ${tool} within ${definition.timeoutSeconds} s`,
          };
        }
        if (error instanceof ProtocolError) {
          return { ok: false, reason: 'UPSTREAM_ERROR', message: error.message };
        }
        if (error instanceof ResponseTooLargeError) {
          return {
            ok: false,
            reason: 'RESULT_TOO_LARGE',
            message: `the answer of ${definition.id}/${tool} is larger than ${error.limit} bytes, over max_result_bytes ${definition.maxResultBytes}`,
          };
        }
        if (isConnectionLoss(error)) {
          fail(gen, describe(error));
          return unavailable(`upstream ${definition.id} went away during the call: ${describe(error)}`);
        }
        return { ok: false, reason: 'UPSTREAM_ERROR', message: describe(error) };
      } finally {
        if (progressToken !== undefined) progress.delete(progressToken);
        release();
      }
    },
    async close() {
      closing = true;
      if (retryTimer !== undefined) clearTimeout(retryTimer);
      retryTimer = undefined;
      generation += 1;
      const old = [client, pending];
      client = undefined;
      pending = undefined;
      await Promise.all(old.map((c) => c?.close().catch(() => undefined)));
      http?.close();
    },
  };
}

// An environment variable the config names is missing: not a connection failure.
class ConfigProblem extends Error {}

function unavailable(message: string): UpstreamCallResult {
  return { ok: false, reason: 'UPSTREAM_UNAVAILABLE', message };
}

function cancelled(): UpstreamCallResult {
  return { ok: false, reason: 'UPSTREAM_ERROR', message: 'the call was cancelled' };
}

// Errors that mean the connection itself is gone (rather than one request failing).
function isConnectionLoss(error: unknown): boolean {
  if (error instanceof SdkError) {
    if (
      error.code === SdkErrorCode.ConnectionClosed ||
      error.code === SdkErrorCode.NotConnected ||
      error.code === SdkErrorCode.SendFailed
    ) {
      return true;
    }
    // A 2025-era server that lost our session (restarted) answers 404.
    const status = (error as { status?: unknown }).status;
    if (status === 404) return true;
  }
  const text = describe(error);
  return /fetch failed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed|not running/i.test(
    text,
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`.slice(0, 500);
}

// A notifications/progress message: its token and what the caller is given.
function progressOf(message: unknown): { token: string; progress: UpstreamProgress } | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== 'notifications/progress' || id !== undefined) return undefined;
  if (typeof params !== 'object' || params === null) return undefined;
  const p = params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown };
  if (typeof p.progressToken !== 'string' || typeof p.progress !== 'number') return undefined;
  return {
    token: p.progressToken,
    progress: {
      progress: p.progress,
      ...(typeof p.total === 'number' ? { total: p.total } : {}),
      ...(typeof p.message === 'string' ? { message: p.message } : {}),
    },
  };
}

function toUpstreamTool(tool: Tool): UpstreamTool {
  return Object.freeze({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.inputSchema as Record<string, unknown>,
    ...(tool.outputSchema === undefined
      ? {}
      : { outputSchema: tool.outputSchema as Record<string, unknown> }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations as Record<string, unknown> }),
  });
}
