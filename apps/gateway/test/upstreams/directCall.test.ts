import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { type HttpTestUpstream, startHttpUpstream, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// HTTP upstreams' tools/call skips the SDK client (packages/upstreams/src/calls/httpToolCall.ts): one POST with the
// session's headers, read by the gateway's own bounded parser. The upstream must not see a difference: the
// same headers and the same `_meta` envelope as the SDK client sends, in both eras, and the same answers.
const gateways: TestGateway[] = [];
const servers: HttpTestUpstream[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const API_KEY = 'upstream-api-key-3f9a1c';
// The headers of a tools/call that carry MCP meaning (the rest is each HTTP client's own: host, length...).
const MCP_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'x-api-key'];

interface Recorded {
  readonly requests: { method: string; headers: Record<string, string> }[];
  readonly metas: Record<string, unknown>[];
}

// What the upstream recorded up to the call that asked (its own tools/call is the last POST and meta).
function recordedOf(result: unknown): Recorded {
  const { encoded, metas } = (
    result as { structuredContent: { encoded: string; metas: Record<string, unknown>[] } }
  ).structuredContent;
  return { requests: JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')), metas };
}

function lastCall(recorded: Recorded) {
  const post = recorded.requests.filter((r) => r.method === 'POST').at(-1);
  const headers = Object.fromEntries(MCP_HEADERS.map((name) => [name, post?.headers[name]]));
  return { headers, session: post?.headers['mcp-session-id'] !== undefined, meta: recorded.metas.at(-1) };
}

describe('tools/call of HTTP upstreams on the direct path', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`the upstream sees the headers and _meta the SDK client sends, and answers the same (${era} era)`, async () => {
      const http = await startHttpUpstream(['--era', era]);
      servers.push(http);
      const gw = await startTestGateway(
        { upstreams: [{ id: 'remote', url: http.url, headers_from_env: { 'X-Api-Key': 'REMOTE_KEY' } }] },
        { ...process.env, REMOTE_KEY: API_KEY },
      );
      gateways.push(gw);
      const caller = await connectClient(gw.url);
      const reference = new Client(
        { name: 'skillgate', version: '0.1.0' },
        era === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {},
      );
      await reference.connect(
        new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { 'X-Api-Key': API_KEY } },
        }),
      );
      try {
        await caller.client.callTool({ name: 'skill_remote_get_info', arguments: {} });
        const viaGateway = lastCall(
          recordedOf(await caller.client.callTool({ name: 'skill_remote_call_headers', arguments: {} })),
        );
        const viaSdk = lastCall(recordedOf(await reference.callTool({ name: 'headers', arguments: {} })));
        expect(viaGateway.headers).toEqual(viaSdk.headers);
        expect(viaGateway.session).toBe(viaSdk.session);
        expect(viaGateway.session).toBe(era === 'legacy');
        // The envelope's keys and values, but the client's name and version, which are each client's own.
        const envelope = (meta: Record<string, unknown> | undefined) => ({
          ...meta,
          'io.modelcontextprotocol/clientInfo': typeof meta?.['io.modelcontextprotocol/clientInfo'],
        });
        expect(envelope(viaGateway.meta)).toEqual(envelope(viaSdk.meta));

        // The same answers: a result, a tool error, a JSON-RPC error, progress steps.
        for (const [tool, args] of [
          ['echo', { text: 'same' }],
          ['fail', { message: 'tool said no' }],
        ] as const) {
          const direct = await reference.callTool({ name: tool, arguments: args });
          const proxied = await caller.client.callTool({
            name: `skill_remote_call_${tool}`,
            arguments: args,
          });
          expect(proxied.content).toEqual(direct.content);
          expect(proxied.isError === true).toBe(direct.isError === true);
        }
        const thrown = await caller.client.callTool({
          name: 'skill_remote_call_throw',
          arguments: { message: 'json-rpc said no' },
        });
        expect(thrown.structuredContent).toMatchObject({ reason: 'UPSTREAM_ERROR' });
        expect(textOf(thrown)).toContain('json-rpc said no');
        const steps: number[] = [];
        const progressed = await caller.client.callTool(
          { name: 'skill_remote_call_progress', arguments: { steps: 3, gap_ms: 0 } },
          undefined,
          { onprogress: (p) => steps.push(p.progress) },
        );
        expect(textOf(progressed)).toBe('done 3');
        expect(steps).toEqual([1, 2, 3]);
      } finally {
        await caller.close();
        await reference.close();
      }
    });
  }

  it('a 2025 session the upstream forgot (404) takes the upstream down and back; the next call is served', async () => {
    const http = await startHttpUpstream(['--era', 'legacy']);
    servers.push(http);
    const gw = await startTestGateway({ upstreams: [{ id: 'remote', url: http.url }] });
    gateways.push(gw);
    const caller = await connectClient(gw.url);
    try {
      await caller.client.callTool({ name: 'skill_remote_get_info', arguments: {} });
      const call = (tool: string, args: Record<string, unknown> = {}) =>
        caller.client.callTool({ name: `skill_remote_call_${tool}`, arguments: args });
      expect(textOf(await call('forget_sessions'))).toBe('forgotten');
      const lost = await call('echo', { text: 'after' });
      expect(lost.structuredContent).toMatchObject({ reason: 'UPSTREAM_UNAVAILABLE' });
      expect(textOf(lost)).toContain('404');
      await waitFor(() => gw.gateway.upstreams.snapshots()[0]?.state === 'ready', {
        what: 'the upstream reconnected',
        timeoutMs: 30_000,
      });
      expect(textOf(await call('echo', { text: 'again' }))).toBe('again');
    } finally {
      await caller.close();
    }
  });
});
