import { StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import type { ProcessGuard } from '@skillgate/runner';
import type { UpstreamDefinition } from '../types.js';
import { UpstreamsError } from '../upstreamsError.js';
import { configuredHeaders } from '../wire/configuredHeaders.js';
import type { NodeFetch } from '../wire/nodeFetch.js';
import { createStderrLines } from './stderrLines.js';
import { stdioSandbox } from './stdioSandbox.js';
import { createStdioServerTransport } from './stdioServerTransport.js';

/** Options of createUpstreamTransport. */
export interface UpstreamTransportOptions {
  readonly definition: UpstreamDefinition;
  /** Where header values and env_from come from (the gateway's environment). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Working directory of a stdio server. */
  readonly cwd: string;
  /** bwrap, when stdio servers run sandboxed (docs/sandbox.md, "Stdio upstreams"). */
  readonly bwrap: string | undefined;
  readonly guard: () => Promise<ProcessGuard>;
  /** HTTP upstreams: the connection's kept-alive fetch. */
  readonly http: NodeFetch | undefined;
  /** Largest message read from a stdio server. */
  readonly maxMessageBytes: number;
  readonly stderrBytesPerMinute: number;
  /** Each line of a stdio server's stderr within the rate bound. */
  readonly stderrLine: (line: string) => void;
  /**
   * The HTTP headers of this transport instead of `headers_from_env`: a `perCaller` upstream's listing
   * credential, or one principal's own on its own session (docs/credentials.md).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

// Scrubbed environment of a stdio server: these from the gateway, plus env_from.
const INHERITED_ENV = ['PATH', 'HOME', 'LANG'] as const;

/**
 * The transport of one connect attempt: streamable HTTP with the configured headers, or a stdio server
 * spawned with exactly its scrubbed environment (in bubblewrap when `bwrap` is given). Throws UpstreamsError ENV_NOT_SET when a variable the
 * config names is missing, before anything is sent or spawned.
 */
export async function createUpstreamTransport(options: UpstreamTransportOptions): Promise<Transport> {
  const { definition } = options;
  if (definition.url !== undefined) {
    return new StreamableHTTPClientTransport(new URL(definition.url), {
      requestInit: { headers: { ...(options.headers ?? configuredHeaders(definition, options.env)) } },
      ...(options.http === undefined ? {} : { fetch: options.http.fetch }),
    });
  }
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = options.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, variable] of Object.entries(definition.envFrom ?? {})) {
    const value = options.env[variable];
    if (value === undefined) throw notSet(variable, `env_from ${name}`);
    env[name] = value;
  }
  const sandboxed =
    options.bwrap === undefined
      ? undefined
      : stdioSandbox({
          bwrap: options.bwrap,
          command: definition.command ?? [],
          cwd: options.cwd,
          searchPath: options.env.PATH ?? '',
          network: definition.sandbox?.network ?? false,
          read: definition.sandbox?.read ?? [],
          write: definition.sandbox?.write ?? [],
        });
  if (sandboxed !== undefined) {
    // The gateway's own paths do not exist inside; home is the server's private /tmp.
    env.PATH = sandboxed.path;
    env.HOME = '/tmp';
  }
  return createStdioServerTransport({
    command: sandboxed?.command ?? definition.command ?? [],
    ...(sandboxed === undefined ? {} : { sandbox: sandboxed.sandbox }),
    env,
    cwd: options.cwd,
    guard: await options.guard(),
    maxMessageBytes: options.maxMessageBytes,
    onStderr: createStderrLines({ bytesPerMinute: options.stderrBytesPerMinute, log: options.stderrLine }),
  });
}

function notSet(variable: string, usedFor: string): UpstreamsError {
  return new UpstreamsError('ENV_NOT_SET', `environment variable ${variable} is not set (${usedFor})`);
}
