import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type Client,
  PROTOCOL_VERSION_META_KEY,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { createHttpToolCaller } from '../calls/httpToolCall.js';
import type { ProgressRelay } from '../calls/progressRelay.js';
import { createStdioToolCaller } from '../calls/stdioToolCall.js';
import type { DirectToolCaller, UpstreamDefinition } from '../types.js';
import { type CallPoster, createCallPoster } from '../wire/callPoster.js';
import { configuredHeaders } from '../wire/configuredHeaders.js';
import { createNodeFetch, type NodeFetch } from '../wire/nodeFetch.js';
import { UPSTREAM_CLIENT_CAPABILITIES } from './upstreamClient.js';

// Room for the JSON-RPC envelope around a result of max_result_bytes in one HTTP answer or event.
const CALL_ENVELOPE_BYTES = 64 * 1024;
// A call's event stream carries its answer and notifications (progress): a few answers' worth in all.
const STREAM_ANSWERS = 4;

/** Options of createUpstreamWire. */
export interface UpstreamWireOptions {
  readonly definition: UpstreamDefinition;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Where a direct call's notifications (progress) go. */
  readonly progress: Pick<ProgressRelay, 'deliver'>;
}

/** What one upstream's connection sends on, for the connection's whole life (every attempt). */
export interface UpstreamWire {
  /** HTTP upstreams: one set of kept-alive connections for the SDK client's requests. */
  readonly http: NodeFetch | undefined;
  /** The largest message read from the upstream: past it the server is broken, not just verbose. */
  readonly maxMessageBytes: number;
  /**
   * The direct tools/call path of a connected client, or undefined where the SDK's path is kept; `headers`:
   * the credentials its transport was made with, when not `headers_from_env`.
   */
  directCaller(connected: Client, headers?: Readonly<Record<string, string>>): DirectToolCaller | undefined;
  close(): void;
}

/** The wire of one upstream: kept-alive connections, bounds, and the direct tools/call path. */
export function createUpstreamWire(options: UpstreamWireOptions): UpstreamWire {
  const { definition } = options;
  // A result may be escaped on the wire; past this the server is broken, not just verbose.
  const maxMessageBytes = Math.max(definition.maxResultBytes * 4, 16 * 1024 * 1024);
  const http: NodeFetch | undefined =
    definition.url === undefined
      ? undefined
      : createNodeFetch({
          maxBodyBytes: maxMessageBytes,
          maxCallAnswerBytes: definition.maxResultBytes + CALL_ENVELOPE_BYTES,
        });
  // Its tools/call POSTs (httpToolCall.ts): their own kept-alive connections, read without streams.
  const poster: CallPoster | undefined = definition.url === undefined ? undefined : createCallPoster();
  return {
    http,
    maxMessageBytes,
    // The direct tools/call path of a connected HTTP client: its session, era and the configured headers.
    directCaller(connected, headers) {
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
        headers: headers ?? configuredHeaders(definition, options.env),
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
        onMessage: (message) => options.progress.deliver(message),
      });
    },
    close() {
      http?.close();
      poster?.close();
    },
  };
}
