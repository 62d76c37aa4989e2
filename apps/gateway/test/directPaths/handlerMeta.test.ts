import {
  type CallToolResult,
  createMcpHandler,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createModernAnswers } from '../../src/direct/modernAnswers.js';
import { plainRequestOf } from '../../src/direct/plainRequest.js';
import { SERVER_INFO } from '../../src/mcp/createMcpServer.js';
import type { SkillsService } from '../../src/skillsExtension/skillsService.js';
import { LazyAbort } from '../../src/tools/lazyAbort.js';

// The encode step of the 2026-07-28 direct path (src/direct/encodeResult.ts) against the SDK's own: a tool
// handler that writes its own `_meta` (or its own resultType, or cache fields) must come out of the direct
// path byte for byte as out of the SDK's server, which lets the handler win in some places and adds its keys
// in a set order. No tool kind of the gateway writes `_meta` today (an upstream's result is passed on without
// it), so the handler here is the test's: the same function is registered on the SDK's McpServer, served by
// the SDK's createMcpHandler as the modern endpoint serves it, and called by the direct path.

const MODERN = '2026-07-28';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'meta-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const PRINCIPAL = { id: 'anonymous', name: 'anonymous', skills: ['*'] };
const HEADERS: Record<string, string> = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'authored',
};

const text = [{ type: 'text' as const, text: 'done' }];

/** Results a handler may author, each with something the SDK's encode step reads. */
const AUTHORED: ReadonlyArray<readonly [string, CallToolResult]> = [
  ['a _meta of its own', { content: text, _meta: { 'example.com/trace': 'abc' } }],
  ['an empty _meta', { content: text, _meta: {} }],
  [
    'a _meta naming its own server identity',
    { content: text, _meta: { [SERVER_INFO_KEY]: { name: 'upstream', version: '9' }, other: 1 } },
  ],
  ['a _meta before its content', { _meta: { first: true }, content: text }],
  ['its own resultType, first', { resultType: 'complete', content: text } as CallToolResult],
  [
    'cache fields on an uncacheable result',
    { content: text, ttlMs: 5, cacheScope: 'public' } as CallToolResult,
  ],
  ['structured content and _meta', { content: text, structuredContent: { n: 1 }, _meta: { n: 2 } }],
];

const body = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'authored', arguments: {}, _meta: ENVELOPE },
});

/** What a handler may throw instead of answering. */
const THROWN: ReadonlyArray<readonly [string, () => Error]> = [
  ['a plain error', () => new Error('handler broke')],
  [
    'a protocol error with data',
    () => new ProtocolError(ProtocolErrorCode.InvalidParams, 'bad input', { field: 'x' }),
  ],
  ['a -32002 error', () => new ProtocolError(-32002, 'not found here')],
];

/** A handler answering `result`, or throwing what `result` makes. */
const handlerOf = (result: CallToolResult | (() => Error)) => async (): Promise<CallToolResult> => {
  if (typeof result === 'function') throw result();
  return result;
};

/** The SDK's answer: its McpServer with the handler registered, behind its own 2026-07-28 entry. */
async function sdkAnswer(result: CallToolResult | (() => Error), id: number): Promise<string> {
  const handler = createMcpHandler(
    () => {
      const mcp = new McpServer(SERVER_INFO);
      mcp.server.registerCapabilities({ tools: { listChanged: true } });
      mcp.server.setRequestHandler('tools/call', handlerOf(result));
      return mcp.server;
    },
    { legacy: 'reject' },
  );
  const response = await handler.fetch(
    new Request('http://skillgate.test/mcp', {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify(body(id)),
    }),
  );
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('application/json');
  return response.text();
}

/** The direct path's answer: the same handler, through createModernAnswers. */
async function directAnswer(result: CallToolResult | (() => Error), id: number): Promise<string | undefined> {
  const answers = createModernAnswers({
    serverInfo: SERVER_INFO,
    catalog: () => PRINCIPAL,
    viewKey: () => '',
    renderOnce: async () => undefined,
    toolCallHandler: () => handlerOf(result),
    // A tools/call never asks the Skills extension.
    skills: {} as SkillsService,
    skillsCacheHint: () => ({ ttlMs: 0, cacheScope: 'public' }),
  });
  const request = plainRequestOf(body(id), {
    era: 'modern',
    prompts: false,
    revisions: [MODERN],
    header: (name) => HEADERS[name],
  });
  expect(request?.method).toBe('tools/call');
  const answer = request === undefined ? undefined : await answers(PRINCIPAL, request, new LazyAbort());
  // A kept result's answer is its bytes and their end: the same text, written without joining.
  return answer === undefined || typeof answer === 'string' ? answer : `${answer.head}${answer.tail}`;
}

describe('a tool handler that writes its own _meta, on the 2026-07-28 direct path', () => {
  it.each(AUTHORED)('comes out with %s exactly as from the SDK server', async (_label, result) => {
    const [mine, theirs] = [await directAnswer(result, 7), await sdkAnswer(result, 7)];
    expect(mine).toBe(theirs);
  });

  it.each(THROWN)('answers a handler that throws %s exactly as the SDK server', async (_label, error) => {
    const [mine, theirs] = [await directAnswer(error, 9), await sdkAnswer(error, 9)];
    expect(mine).toBe(theirs);
  });

  it("keeps the handler's own server identity, as the SDK does", async () => {
    const [, result] = AUTHORED[2] ?? [];
    expect(result).toBeDefined();
    const answer = JSON.parse((await directAnswer(result ?? { content: [] }, 8)) ?? '{}');
    expect(answer.result._meta[SERVER_INFO_KEY]).toEqual({ name: 'upstream', version: '9' });
  });
});
