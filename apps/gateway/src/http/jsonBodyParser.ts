import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gatewayError.js';
import { type JsonBounds, type JsonShape, mayExceedJsonBounds, scanJsonShape } from './scanJsonShape.js';

/** The answer to a JSON-RPC batch outside a 2025-03-26 session (the only revision that has batches). */
export const BATCH_REFUSED = 'Invalid Request: JSON-RPC batches need a 2025-03-26 session';

/**
 * Whether a request could carry a batch the gateway accepts: only a 2025-03-26 session may, and clients
 * of later revisions name theirs in MCP-Protocol-Version (the session's transport checks the rest).
 */
function mayHoldBatch(headers: FastifyRequest['headers']): boolean {
  if (typeof headers['mcp-session-id'] !== 'string') return false;
  const version = headers['mcp-protocol-version'];
  return version === undefined || version === '2025-03-26';
}

const OPEN_ARRAY = 0x5b;

/**
 * The code of a text's first character that String.trim would keep, or undefined for a blank text: a scan
 * instead of trimmed copies of every body. Other spaces than JSON's four are rare, and left to trimStart.
 */
function firstNonBlank(text: string): number | undefined {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) continue;
    if (c < 0x80 && c !== 0x0b && c !== 0x0c) return c;
    const rest = text.slice(i).trimStart();
    return rest === '' ? undefined : rest.charCodeAt(0);
  }
  return undefined;
}

/**
 * Makes JSON the only body the endpoint takes, parsed once here with Fastify's body limit, after its width
 * and depth are bounded and a batch that can only be refused is refused (docs/limits.md).
 */
export function registerJsonBodyParser(app: FastifyInstance, jsonBounds: JsonBounds): void {
  // JSON is the only body the endpoint takes: anything else is a 415, not a string handed to the SDK.
  app.removeAllContentTypeParsers();
  // JSON bodies are parsed here, once, with Fastify's body limit (the SDK's own limit is skipped when
  // it receives a parsed body). An empty body (a DELETE with a JSON content type) is allowed.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const first = firstNonBlank(text);
    if (first === undefined) return done(null, undefined);
    // A batch that can only be refused is refused before it is parsed (docs/limits.md).
    if (first === OPEN_ARRAY && !mayHoldBatch(request.headers)) {
      return done(new GatewayError('INVALID_REQUEST', BATCH_REFUSED), undefined);
    }
    // Width and depth are bounded before the body is parsed or any SDK code validates it (docs/limits.md).
    const shape: JsonShape = mayExceedJsonBounds(text, jsonBounds) ? scanJsonShape(text, jsonBounds) : {};
    if (shape.exceeded !== undefined) {
      // A request with an id gets its answer (-32602: the excess is in what it carries); anything else -32600.
      const id = shape.id;
      return done(
        shape.method !== undefined && id !== undefined && (typeof id === 'string' || Number.isInteger(id))
          ? new GatewayError('INVALID_ARGUMENTS', `Invalid params: the request is ${shape.exceeded}`, {
              requestId: id,
            })
          : new GatewayError('INVALID_REQUEST', `Invalid Request: the body is ${shape.exceeded}`),
        undefined,
      );
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(
        new GatewayError('PARSE_ERROR', 'Parse error: request body is not valid JSON', { cause: error }),
        undefined,
      );
    }
  });
}
