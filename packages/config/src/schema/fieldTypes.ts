import { z } from 'zod';
import { isLoopbackHost } from '../isLoopbackHost.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

// A week bounds every duration: larger values are typos, and they would overflow Node's 32-bit timers.
/** A duration in seconds, at most `max` (a week by default). */
export const seconds = (max = 7 * 86_400) => z.number().positive().max(max);

/** An integer of at least `min`. */
export const count = (min = 1) => z.number().int().min(min);

/** A skill-name glob. */
export const glob = z.string().min(1).max(256);

/** The name of an environment variable. */
export const envName = z.string().regex(ENV_NAME, 'must be an environment variable name');

/** Whether a value is an http:// or https:// URL without credentials in it. */
export const isHttpUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
};

// RFC 6749 §3.3: a scope token is printable ASCII without space, " or \.
/** An OAuth scope. */
export const scopeToken = z
  .string()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/, 'must be an OAuth scope (printable ASCII, no space, " or \\)');

// Where the gateway fetches keys and metadata from, or sends client secrets and tokens to: https, or http only
// on a loopback address (a test or a sidecar IdP); over a network in the clear they could be read or forged.
const isSecureUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '' || url.hash !== '') return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return false;
  }
};

/** An https:// URL (http:// only on a loopback address) without credentials or fragment. */
export const secureUrl = z
  .string()
  .refine(isSecureUrl, 'must be an https:// URL (http:// only on a loopback address), without credentials');

// Header names (RFC 9110 tokens) the transport sets itself cannot come from config.
const RESERVED_HEADERS = new Set([
  'accept',
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** An HTTP header name a config may set. */
export const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, 'must be an HTTP header name')
  .refine((name) => !RESERVED_HEADERS.has(name.toLowerCase()), 'is set by the MCP transport itself');
