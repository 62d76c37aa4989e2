import { waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlpReceiver.js';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// What a client puts in a request reaches the SERVER span's attributes: a configured secret there (an upstream's
// key a tenant was handed, say) is cut by the gateway's one redactor before export.
const TOKEN = 'span-agent-token-4b8e2f1a9c';
const UPSTREAM_KEY = 'span-upstream-key-6d0c3e7b15';

let otlp: OtlpReceiver;
let gw: TestGateway;
beforeAll(async () => {
  otlp = await startOtlpReceiver();
  gw = await startTestGateway(
    {
      auth: { tokens: [{ name: 'agent-a', token_env: 'SPAN_AGENT_TOKEN' }] },
      // Never reached (no server there): its key is a configured secret all the same.
      upstreams: [
        { id: 'vault', url: 'http://127.0.0.1:9/mcp', headers_from_env: { 'X-API-Key': 'SPAN_KEY' } },
      ],
      observability: { tracing: { endpoint: otlp.url, protocol: 'http/json', service_name: 'span-test' } },
    },
    { ...process.env, SPAN_AGENT_TOKEN: TOKEN, SPAN_KEY: UPSTREAM_KEY },
    undefined,
    { awaitUpstreams: false },
  );
});
afterAll(async () => {
  await gw?.close();
  await otlp?.close();
});

const spanWith = async (key: string, match: (value: unknown) => boolean): Promise<ReceivedSpan> => {
  const find = () => otlp.spans.find((s) => match(s.attributes[key]));
  await waitFor(() => find() !== undefined, { what: `a span with ${key}` });
  const span = find();
  if (span === undefined) throw new Error(`no span with ${key}`);
  return span;
};

/** A 2026-07-28 tools/list with the JSON-RPC id `id`, by raw HTTP. */
const listWithId = (id: string): Promise<Response> =>
  fetch(gw.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  });

describe('span attributes', () => {
  it('a configured secret a client puts in a request is redacted in the span', async () => {
    const id = `call-${UPSTREAM_KEY}`;
    const raw = await listWithId(id);
    expect(raw.status).toBe(200);
    await raw.text();
    const list = await spanWith('jsonrpc.request.id', (v) => typeof v === 'string' && v.startsWith('call-'));
    expect(list.attributes['jsonrpc.request.id']).toBe('call-[redacted]');
    const all = JSON.stringify(otlp.spans);
    expect(all).not.toContain(UPSTREAM_KEY);
    expect(all).not.toContain(TOKEN);
  });

  // jsonrpc.request.id went into the span whole: a 20 KB id made a 20 KB attribute (the body limit allows far
  // more). Bounded like the other client strings.
  it('a 20 KB request id is cut in its attribute, and the request is answered', async () => {
    const id = `long-${'i'.repeat(20_000)}`;
    const raw = await listWithId(id);
    expect(raw.status).toBe(200);
    expect(((await raw.json()) as { id?: unknown }).id).toBe(id);
    const span = await spanWith('jsonrpc.request.id', (v) => typeof v === 'string' && v.startsWith('long-'));
    const attribute = String(span.attributes['jsonrpc.request.id']);
    expect(attribute.length).toBeLessThan(300);
    expect(attribute).toMatch(/…\[\d+ more chars\]$/);
  });
});
