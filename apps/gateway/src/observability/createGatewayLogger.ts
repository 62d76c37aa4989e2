import type { LogLevel } from '@skillgate/config';
import type { FastifyBaseLogger } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { escapeJsonLine, escapeRecord } from './escapeControlCharacters.js';
import { createSecretRedactor, type SecretRedactor } from './redactSecrets.js';

/** Options of createGatewayLogger. */
export interface GatewayLoggerOptions {
  readonly level: LogLevel;
  /** `json`: one JSON object per line; `pretty`: one readable line per record (for a terminal). */
  readonly format?: 'json' | 'pretty';
  /** Where the lines go (default stdout). */
  readonly destination?: DestinationStream;
  /** The gateway's redactor (compose/secretValues.ts); default: token shapes only, no configured values. */
  readonly redact?: SecretRedactor;
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

const field = (record: Record<string, unknown>, key: string, name: string): unknown => {
  const value = record[key];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
};

/**
 * On a terminal a request line reads `POST /mcp 200 3 ms`, and the fields a person rarely needs there
 * (pid, host name, request id, the request and response objects) are left out; JSON keeps them all.
 */
const prettyMessage = (record: Record<string, unknown>, messageKey: string): string => {
  const method = field(record, 'req', 'method');
  const status = field(record, 'res', 'statusCode');
  const message = String(record[messageKey] ?? '');
  if (typeof method !== 'string' || typeof status !== 'number') return message;
  const ms = typeof record.responseTime === 'number' ? ` ${record.responseTime.toFixed(1)} ms` : '';
  return `${method} ${String(field(record, 'req', 'url'))} ${status}${ms}`;
};

/**
 * Writes each (already redacted) JSON line as pino-pretty's one readable line, synchronously. The record is
 * decoded here and every string in it escaped before pino-pretty (and our own message format) print it:
 * decoding turns a logged `\u001b` back into ESC, and pino-pretty strips only some control characters.
 */
function prettyDestination(sink: DestinationStream): DestinationStream {
  const pretty = prettyFactory({
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    messageFormat: prettyMessage,
  });
  return {
    write: (line: string) => {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        record = undefined;
      }
      sink.write(
        typeof record === 'object' && record !== null
          ? pretty(escapeRecord(record))
          : `${escapeJsonLine(line)}`,
      );
    },
  };
}

/**
 * The gateway's logger: credential headers and query strings never serialized, and every line passed
 * through the secret redactor before it is written (and, in the pretty format, before it is prettified), so a
 * secret in a message or error is removed in both formats; control characters from any field (an upstream's
 * stderr, a tool name quoted in a clash) are written as visible escapes, never raw.
 */
export function createGatewayLogger(options: GatewayLoggerOptions): FastifyBaseLogger {
  const redact = options.redact ?? createSecretRedactor([]);
  const sink = options.destination ?? pino.destination(1);
  const logger = pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { req: requestSerializer },
      // Control characters are escaped in both formats (a terminal may show either): docs/operator.md.
      hooks: { streamWrite: (line) => escapeJsonLine(redact(line)) },
    },
    options.format === 'pretty' ? prettyDestination(sink) : sink,
  );
  return logger as FastifyBaseLogger;
}
