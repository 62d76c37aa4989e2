import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NativeHttpTransport } from '../../../src/legacy/nativeHttpTransport.js';

// A 2025-era answer that throws while it is written (a circular value, as a looping SKILL.md frontmatter was
// before the Skills extension stopped publishing it: test/eras/loopingFrontmatter.test.ts). Both ways a session
// answers, the SDK Server's send and the direct path (direct/sessionCalls.ts), ended in the transport's error
// handler and left the POST unanswered; the request now gets an INTERNAL error (-32603) and the session serves on.
const circular = (): Record<string, unknown> => {
  const value: Record<string, unknown> = { content: [] };
  value.self = value;
  return value;
};
let server: Server;
let url: string;
const errors: Error[] = [];
const transport = new NativeHttpTransport('session-1', { maxBatch: 10, maxResponseBytes: 1_000_000 });

beforeAll(async () => {
  // What the SDK's Server does with each message: initialize and ping answered plainly, tools/call with a
  // circular result.
  transport.onmessage = (message) => {
    const request = message as { id?: number; method?: string };
    if (request.id === undefined) return;
    const result =
      request.method === 'initialize'
        ? { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'test', version: '1' } }
        : request.method === 'ping'
          ? {}
          : circular();
    void transport.send({ jsonrpc: '2.0', id: request.id, result } as JSONRPCMessage);
  };
  transport.onerror = (error) => errors.push(error);
  // The direct path answers resources/read (a plain one) with a circular result.
  transport.direct = (message) =>
    (message as { method?: string }).method === 'resources/read' ? Promise.resolve(circular()) : undefined;
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => void transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString())));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
});
afterAll(async () => {
  await transport.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** POSTs one message; the answer's JSON, or undefined for a 202. Gives up after 10 s (the old code's hang). */
async function post(message: object): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(10_000),
  });
  return response.status === 202 ? undefined : ((await response.json()) as Record<string, unknown>);
}

const internalError = (id: number) => ({
  jsonrpc: '2.0',
  id,
  error: {
    code: -32603,
    message: expect.stringContaining('the answer could not be written (Converting circular structure'),
    data: { reason: 'INTERNAL' },
  },
});

describe('a 2025-era answer that cannot be serialized', () => {
  it("is an INTERNAL error when the SDK Server's answer is circular", async () => {
    expect(
      await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x', arguments: {} } }),
    ).toEqual(internalError(2));
  });

  it("is an INTERNAL error when the direct path's answer is circular", async () => {
    expect(
      await post({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'skill://a/SKILL.md' } }),
    ).toEqual(internalError(3));
  });

  it('leaves the session serving', async () => {
    expect(await post({ jsonrpc: '2.0', id: 4, method: 'ping' })).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: {},
    });
    expect(errors).toEqual([]);
  });
});
