import { z } from 'zod';
import { count, seconds } from './fieldTypes.js';

// Browsers send the serialized origin; anything else (trailing slash, path, upper case) could never match.
const isOrigin = (value: string): boolean => {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
};

// An origin a client can be sent to: http(s), no credentials, path, query or fragment.
const isPublicOrigin = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
};

const serverFields = z.strictObject({
  host: z
    .string()
    .regex(/^[^\s/]+$/, 'must be a host name or IP address, without scheme or path')
    .default('127.0.0.1')
    .describe('Address to bind; a non-loopback address requires auth tokens or auth.allow_anonymous.'),
  port: z.number().int().min(0).max(65535).default(3000).describe('TCP port (0 = any free port).'),
  path: z
    .string()
    .regex(/^\/[^\s?#]*$/, 'must start with / and hold no spaces, ? or #')
    .default('/mcp')
    .describe('Path of the MCP endpoint (POST, GET and DELETE).'),
  allowed_origins: z
    .array(
      z.string().refine(isOrigin, 'must be an exact origin such as https://app.example.com (no path or /)'),
    )
    .default([])
    .describe(
      'Extra browser Origin values allowed (exact match); loopback origins are allowed when bound to loopback.',
    ),
  body_limit_bytes: count(1024).default(1_048_576).describe('Largest accepted HTTP request body.'),
  max_batch_size: count(1)
    .max(1024)
    .default(16)
    .describe('Most messages in a JSON-RPC batch (only 2025-03-26 sessions may send batches).'),
  max_response_bytes: count(65_536)
    .default(16_777_216)
    .describe('Largest single JSON-RPC response of a 2025-era session; a larger result becomes an error.'),
  max_client_string_chars: count(16)
    .max(65_536)
    .default(256)
    .describe(
      'Longest client-supplied string stored or logged (client name and version, tool names, URIs); longer ones are cut. A longer progressToken is refused (-32602).',
    ),
  max_json_depth: count(8)
    .max(10_000)
    .default(64)
    .describe('Deepest nesting of a request body; a deeper one is refused before it is validated.'),
  max_json_keys: count(64)
    .default(1000)
    .describe(
      'Object keys and array elements in one request body, in all; a wider one is refused before it is validated.',
    ),
  max_listen_streams: count()
    .max(1_000_000)
    .default(1024)
    .describe('2026-07-28 subscriptions/listen streams open at once in one process; more get 503.'),
  max_listen_streams_per_principal: count()
    .default(16)
    .describe('subscriptions/listen streams one principal may hold open; more get 429.'),
  shutdown_grace_seconds: z
    .number()
    .min(0)
    .max(600)
    .default(10)
    .describe('On SIGTERM, time given to in-flight tool calls before scripts are killed.'),
  trust_proxy: z
    .boolean()
    .default(false)
    .describe(
      'Behind a reverse proxy: take the client address (and host, scheme) from the X-Forwarded-* entry the proxy appended (the last one; the proxy must append, e.g. HAProxy `option forwardfor`).',
    ),
  headers_timeout_seconds: seconds(300)
    .default(10)
    .describe('Time a client has to send all request headers; then 408 and the connection is closed.'),
  request_timeout_seconds: seconds(3600)
    .default(30)
    .describe('Time a client has to send a whole request (headers and body); then 408 and close.'),
  keep_alive_timeout_seconds: seconds(3600)
    .default(72)
    .describe(
      "Idle time a kept-alive connection waits for its next request; keep it above a proxy's idle timeout.",
    ),
  send_timeout_seconds: seconds(3600)
    .default(30)
    .describe('Time output may wait unread (the client stopped reading) before its connection is closed.'),
  max_connections: count()
    .max(1_000_000)
    .default(10_000)
    .describe('Open TCP connections in all; more are closed on accept.'),
  max_connections_per_address: count(0)
    .default(128)
    .describe(
      'Open TCP connections from one client address (0 = no cap); not applied with trust_proxy, where every peer is the proxy.',
    ),
  public_url: z
    .string()
    .refine(isPublicOrigin, 'must be an origin such as https://mcp.example.com (scheme, host, port; no path)')
    .optional()
    .describe(
      'The origin clients reach the gateway at (behind proxies too): names the OAuth resource (auth.oauth) and its metadata URL.',
    ),
});

// node:http refuses a headers timeout longer than the request timeout.
/** The `server` config section. */
export const serverSchema = serverFields.superRefine((server, ctx) => {
  if (server.headers_timeout_seconds > server.request_timeout_seconds) {
    ctx.addIssue({
      code: 'custom',
      path: ['headers_timeout_seconds'],
      message: `must not exceed server.request_timeout_seconds (${server.request_timeout_seconds})`,
    });
  }
});
