import type { LogLevel } from '@skillgate/config';
import type { FastifyBaseLogger } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import { redactSecrets } from './redactSecrets.js';

/** Options of createGatewayLogger. */
export interface GatewayLoggerOptions {
  readonly level: LogLevel;
  /** Where the JSON lines go (default stdout). */
  readonly destination?: DestinationStream;
  /** Exact secret values (the configured tokens) to remove wherever they appear. */
  readonly secrets?: readonly string[];
}

/** The request fields Fastify's request log lines serialize (the same as Fastify's own serializer). */
interface LoggedRequest {
  readonly method?: string;
  readonly url?: string;
  readonly host?: string;
  readonly ip?: string;
  readonly socket?: { readonly remotePort?: number };
}

/** Header paths that hold credentials, wherever a record carries request headers. */
const REDACT_PATHS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key'].flatMap((header) => [
  `req.headers["${header}"]`,
  `headers["${header}"]`,
]);

/**
 * Fastify's request serializer, without the query string: tokens travel there (`?access_token=`), and
 * the path is all a log reader needs.
 */
const requestSerializer = (req: LoggedRequest) => ({
  method: req.method,
  url: req.url?.split('?', 1)[0],
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

/**
 * The gateway's JSON logger: credential headers and query strings never serialized, and every line
 * passed through redactSecrets before it is written, so a secret in a message or error is removed too.
 */
export function createGatewayLogger(options: GatewayLoggerOptions): FastifyBaseLogger {
  const secrets = options.secrets ?? [];
  const logger = pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { req: requestSerializer },
      hooks: { streamWrite: (line) => redactSecrets(line, secrets) },
    },
    options.destination ?? pino.destination(1),
  );
  return logger as FastifyBaseLogger;
}
