import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { describeError } from '../describeError.js';
import type { DirectToolAnswer, DirectToolCaller } from '../types.js';
import { nextCallId } from './callScope.js';

/**
 * The tools/call path of a connected stdio upstream, beside its MCP client (which keeps the handshake,
 * tools/list and notifications): the request is written to the server's stdin as it is, and its answer taken
 * off the transport by its id before the client sees it. The client's per-request work (era codec, request
 * bookkeeping and timers, zod validation of the result) was a third of what a proxied stdio call cost the
 * gateway. Everything else the server sends (progress included, which the progress relay hands to its
 * caller) goes to the client as before. A call that ends before its answer (timeout, cancel) sends
 * notifications/cancelled, as the client does; a server that goes away fails every call in flight.
 */
export function createStdioToolCaller(transport: Transport): DirectToolCaller {
  const waiting = new Map<string, (answer: DirectToolAnswer) => void>();
  const passOn = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const id = (message as { id?: unknown }).id;
    const settle = typeof id === 'string' && !('method' in message) ? waiting.get(id) : undefined;
    if (settle === undefined) {
      passOn?.(message, extra);
      return;
    }
    waiting.delete(id as string);
    settle(answerOf(message));
  };
  const closed = transport.onclose;
  transport.onclose = () => {
    for (const settle of waiting.values()) settle({ kind: 'lost', message: 'the server exited' });
    waiting.clear();
    closed?.();
  };
  return (call) =>
    new Promise<DirectToolAnswer>((resolve) => {
      const id = nextCallId();
      const onEnd = (): void => {
        if (!waiting.delete(id)) return;
        void transport
          .send({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: 'the call ended at the gateway' },
          })
          .catch(() => undefined);
        resolve({ kind: 'aborted' });
      };
      waiting.set(id, (answer) => {
        call.end.listen(undefined);
        resolve(answer);
      });
      call.end.listen(onEnd);
      const request = {
        jsonrpc: '2.0' as const,
        id,
        method: 'tools/call',
        params: {
          name: call.tool,
          arguments: call.args,
          ...(call.meta === undefined ? {} : { _meta: call.meta }),
        },
      };
      transport.send(request as JSONRPCMessage).catch((error: unknown) => {
        if (!waiting.delete(id)) return;
        call.end.listen(undefined);
        resolve({ kind: 'lost', message: describeError(error) });
      });
      if (call.end.aborted) onEnd();
    });
}

function answerOf(message: JSONRPCMessage): DirectToolAnswer {
  const { result, error } = message as { result?: unknown; error?: unknown };
  if (typeof result === 'object' && result !== null && !Array.isArray(result))
    return { kind: 'result', result };
  if (typeof error === 'object' && error !== null) {
    const text = (error as { message?: unknown }).message;
    return { kind: 'error', message: typeof text === 'string' ? text : 'the upstream answered an error' };
  }
  return { kind: 'failed', message: 'the upstream answered the call with no result' };
}
