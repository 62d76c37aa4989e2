import type { JSONRPCMessage, RequestId, TransportSendOptions } from '@modelcontextprotocol/server';
import { LazyAbort, LazyCallContext } from '../tools/lazyAbort.js';
import {
  errorJson,
  type JsonAnswer,
  keptResultAnswer,
  resultJson,
  unwritableAnswerJson,
} from './resultWriter.js';
import { RenderedResult, SDK_PATH, type SessionAnswers } from './sessionAnswers.js';

/** A direct call's response: its result, or an INTERNAL error when the result cannot be serialized. */
function answerOf(id: RequestId, result: Record<string, unknown> | RenderedResult): JsonAnswer {
  if (result instanceof RenderedResult) return keptResultAnswer(id, result.kept);
  try {
    return resultJson(id, JSON.stringify(result));
  } catch (error) {
    return unwritableAnswerJson(id, error);
  }
}

/** Where a direct call's answer goes: the session's transport. */
export interface SessionCallSink {
  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void>;
  /** A whole response, already JSON (resultWriter.ts), for request `id`. */
  sendResponse(id: RequestId, json: JsonAnswer): void;
  /** Hands a message to the session's SDK Server after all. */
  toServer(message: JSONRPCMessage): void;
  onError(error: Error): void;
}

/**
 * The requests of one session on its direct path (sessionAnswers.ts), kept until answered so that a
 * client's `notifications/cancelled` reaches their handlers: as with the SDK's Server, a cancelled request's
 * handler sees its signal abort and no answer follows; a closed session aborts them all.
 */
export class SessionCalls {
  /** The session's direct path; until set, every request goes to the Server. */
  answers: SessionAnswers | undefined;
  private readonly running = new Map<RequestId, LazyAbort>();

  constructor(private readonly sink: SessionCallSink) {}

  /** Answers `message` on the direct path if it is one of its requests; false leaves it to the Server. */
  take(message: JSONRPCMessage & { id: RequestId; method: string }): boolean {
    if (this.answers === undefined) return false;
    const { id } = message;
    const controller = new LazyAbort();
    const answer = this.answers(
      message,
      // As the Server writes a notification: envelope first, on the request's own stream.
      new LazyCallContext(controller, (notification) =>
        this.sink.send({ jsonrpc: '2.0', ...notification } as JSONRPCMessage, { relatedRequestId: id }),
      ),
    );
    if (answer === undefined) return false;
    this.running.set(id, controller);
    void this.answer(message, controller, answer);
    return true;
  }

  /** Sends a direct call's answer once it settles: nothing after a cancellation, SDK_PATH to the Server. */
  private async answer(
    message: JSONRPCMessage & { id: RequestId },
    controller: LazyAbort,
    answer: Promise<Record<string, unknown> | RenderedResult>,
  ): Promise<void> {
    const { id } = message;
    let outcome: { readonly result: Record<string, unknown> | RenderedResult } | { readonly error: unknown };
    try {
      outcome = { result: await answer };
    } catch (error) {
      outcome = { error };
    }
    if (this.running.get(id) === controller) this.running.delete(id);
    try {
      if ('error' in outcome && outcome.error === SDK_PATH) this.sink.toServer(message);
      else if (controller.aborted) return;
      // Written as the Server would write them, without the transport's general send (a response to a
      // request of this exchange needs none of its routing).
      else if ('error' in outcome) this.sink.sendResponse(id, errorJson(id, outcome.error));
      else this.sink.sendResponse(id, answerOf(id, outcome.result));
    } catch (error) {
      this.sink.onError(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A client's cancellation: the named request's handler sees its signal abort. */
  cancel(params: { requestId?: unknown } | undefined): void {
    // A malformed cancellation (no params) names nothing: the Server ignores it too.
    const requestId = params?.requestId;
    if (typeof requestId === 'string' || typeof requestId === 'number')
      this.running.get(requestId)?.abort(params);
  }

  /** The session closed: every running handler sees its signal abort. */
  abortAll(): void {
    for (const controller of this.running.values()) controller.abort();
    this.running.clear();
  }
}
