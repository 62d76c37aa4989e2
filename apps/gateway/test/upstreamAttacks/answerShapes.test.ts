import { type HttpTestUpstream, startHostileUpstream, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// The shapes of an HTTP answer an upstream may choose besides its content: a redirect (to make the gateway
// send its credential elsewhere), headers and then nothing, a content type that is no MCP answer, and a
// listing nested deeper than the stack. Each fails only its own call or upstream.
let gw: TestGateway;
let hostile: HttpTestUpstream;
let deepListing: HttpTestUpstream;
const CREDENTIAL = 'Bearer answer-shapes-credential-5678';

beforeAll(async () => {
  [hostile, deepListing] = await Promise.all([
    startHostileUpstream(['--name', 'shapes', '--tools', 'ping']),
    startHostileUpstream(['--name', 'deeplist', '--deep-schema', '20000']),
  ]);
  gw = await startTestGateway(
    {
      upstreams: [
        {
          id: 'shapes',
          url: hostile.url,
          timeout_seconds: 2,
          headers_from_env: { Authorization: 'SHAPES_AUTH' },
        },
        { id: 'deeplist', url: deepListing.url },
      ],
    },
    { ...process.env, SHAPES_AUTH: CREDENTIAL },
  );
  await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state !== 'connecting'), {
    what: 'both upstreams connected or down',
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await Promise.all([hostile?.stop(), deepListing?.stop()]);
});

describe('the shapes of an HTTP answer', () => {
  it('a redirect is not followed: the credential never reaches where it points, the call fails', async () => {
    const client = await connectClient(gw.url);
    try {
      await client.client.callTool({ name: 'skill_shapes_get_info', arguments: {} });
      const result = await client.client.callTool({ name: 'skill_shapes_call_redirect', arguments: {} });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ reason: 'UPSTREAM_ERROR', upstream: 'shapes' });
      // The next call is answered after the redirect's: had it been followed, its log line would be in.
      const ping = await client.client.callTool({ name: 'skill_shapes_call_ping', arguments: {} });
      expect(textOf(ping)).toBe('shapes:ping:{}');
      expect(hostile.stderr.filter((line) => line.startsWith('redirect followed'))).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('an answer that never ends ends at the call timeout; a wrong content type fails at once', async () => {
    const client = await connectClient(gw.url);
    try {
      await client.client.callTool({ name: 'skill_shapes_get_info', arguments: {} });
      const [stalled, html, ping] = await Promise.all([
        client.client.callTool({ name: 'skill_shapes_call_stall', arguments: {} }),
        client.client.callTool({ name: 'skill_shapes_call_html', arguments: {} }),
        client.client.callTool({ name: 'skill_shapes_call_ping', arguments: {} }),
      ]);
      expect(stalled.structuredContent).toMatchObject({ reason: 'UPSTREAM_TIMEOUT' });
      expect(html.structuredContent).toMatchObject({
        reason: 'UPSTREAM_ERROR',
        message: expect.stringContaining('content type text/html'),
      });
      expect(textOf(ping)).toBe('shapes:ping:{}');
    } finally {
      await client.close();
    }
  });

  it('a listing nested 20,000 levels deep fails only its own upstream', async () => {
    const deep = gw.gateway.upstreams.snapshots().find((s) => s.id === 'deeplist');
    expect(deep?.state).toBe('down');
    expect(gw.gateway.upstreams.snapshots().find((s) => s.id === 'shapes')?.state).toBe('ready');
    const client = await connectClient(gw.url);
    try {
      const info = await client.client.callTool({ name: 'skill_deeplist_get_info', arguments: {} });
      expect(textOf(info)).toContain('unavailable');
      const res = await fetch(new URL('/readyz', gw.base));
      expect(res.status).toBe(200);
    } finally {
      await client.close();
    }
  });
});
