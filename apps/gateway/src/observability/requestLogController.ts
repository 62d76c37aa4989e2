import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { writesAt } from './writesAt.js';

/**
 * Fastify's request log lines, one per request and at `debug`: Fastify writes "incoming request" and
 * "request completed" at `info`, two lines for every probe and MCP message, which buries the lines an
 * operator reads (start-up, problems, tool-call audits). A failed request still logs at `error`, and a
 * 404 is the completed line's status rather than a line of its own.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else if (writesAt(reply.log, 'debug')) {
      // Built only when written: every request passes here.
      reply.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    }
  }

  override routeNotFound(): void {}

  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    // A client that hangs up on its SSE stream is routine for MCP, not news.
    if ((error as { code?: unknown }).code === 'ERR_STREAM_PREMATURE_CLOSE') {
      reply.log.debug({ res: reply }, 'stream closed prematurely');
    } else super.streamError(error, request, reply);
  }
}
