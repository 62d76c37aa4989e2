import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionRecord } from '@skillgate/state';
import type { SessionTransport } from './nativeHttpTransport.js';

const REPLAY_TIMEOUT_MS = 5000;

/** An in-process HTTP exchange: a request that never touches a socket, and the response it gets. */
function internalExchange(
  path: string,
  headers: Readonly<Record<string, string>>,
): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = path;
  req.headers = {
    host: 'localhost',
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    ...headers,
  };
  // The SDK's Node adapter builds its web Request from the raw header list.
  req.rawHeaders = Object.entries(req.headers).flatMap(([name, value]) => [name, String(value)]);
  req.push(null);
  return { req, res: new ServerResponse(req) };
}

async function send(
  transport: SessionTransport,
  path: string,
  headers: Readonly<Record<string, string>>,
  body: unknown,
): Promise<number> {
  const { req, res } = internalExchange(path, headers);
  await transport.handleRequest(req, res, body);
  // The answer is written after the handler runs; a socketless response emits no events, so poll its state.
  const deadline = Date.now() + REPLAY_TIMEOUT_MS;
  while (!res.writableEnded) {
    if (Date.now() > deadline) throw new Error('the replayed initialize was not answered');
    await sleep(1);
  }
  return res.statusCode;
}

/**
 * Puts a fresh Server + transport of a session that another replica (or an earlier process) opened into the
 * state its initialize left them in, by replaying initialize and notifications/initialized through the
 * transport's own request path, so both transports (native and the SDK's) and the SDK Server go through
 * exactly what a client's handshake does (docs/scale-out.md, "Any replica serves any session").
 */
export async function replayInitialize(
  transport: SessionTransport,
  record: SessionRecord,
  path: string,
): Promise<void> {
  const initialize = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: record.protocolVersion,
      // Client capabilities are not stored: the gateway never sends requests to clients.
      capabilities: {},
      clientInfo: { name: record.client.name, version: record.client.version },
    },
  };
  const opened = await send(transport, path, {}, initialize);
  if (opened !== 200) throw new Error(`the replayed initialize was answered ${opened}`);
  const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
  const headers = { 'mcp-session-id': record.id, 'mcp-protocol-version': record.protocolVersion };
  const done = await send(transport, path, headers, initialized);
  if (done !== 202) throw new Error(`the replayed notifications/initialized was answered ${done}`);
}
