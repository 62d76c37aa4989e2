import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type HttpTestUpstream,
  type RedisServer,
  startHttpUpstream,
  startRedisServer,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messagesOf, openSession, post } from '../helpers/rawHttp.js';
import { counter, type ReplicaCluster, startReplicaCluster } from '../helpers/replicaCluster.js';
import { connectV2, type V2TestClient } from '../helpers/v2Client.js';

// Upstream calls across two replicas sharing one real redis-server. Each replica holds its own connection
// to the same upstream server (as in production: nothing upstream is shared state), so a session unlocked
// on one replica calls through the other, and a change of the upstream's tools reaches every replica from
// the upstream itself. Requests go to each replica's own port: which replica answered is known.

const ECHO = 'skill_live_call_echo';
const FRESH = 'skill_live_call_fresh';

let redis: RedisServer;
let upstream: HttpTestUpstream;
const clusters: ReplicaCluster[] = [];
const clients: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  await Promise.all(clusters.splice(0).map((c) => c.close()));
  await upstream?.stop();
});
afterAll(async () => {
  await redis.close();
});

/** Two replicas on one Redis prefix, each connected to the one HTTP test upstream, both ready. */
async function cluster(): Promise<ReplicaCluster> {
  upstream = await startHttpUpstream();
  const started = await startReplicaCluster({
    redisUrl: redis.url,
    config: { upstreams: [{ id: 'live', url: upstream.url, description: 'The test upstream.' }] },
  });
  clusters.push(started);
  for (const replica of started.replicas) {
    await waitFor(
      async () => {
        const ready = (await (await fetch(`${replica.base}/readyz`)).json()) as {
          upstreams?: Array<{ id: string; state: string }>;
        };
        return ready.upstreams?.find((u) => u.id === 'live')?.state === 'ready';
      },
      { what: `the upstream ready on ${replica.base}` },
    );
  }
  return started;
}

let requestId = 10;
const rpc = (method: string, params: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: ++requestId,
  method,
  params,
});

/** One 2025-era request of a session to exactly this replica; its JSON-RPC answer. */
async function request(url: URL, session: string, method: string, params: Record<string, unknown>) {
  const response = await post(url, rpc(method, params), {
    'mcp-session-id': session,
    'mcp-protocol-version': '2025-11-25',
  });
  expect(response.status).toBe(200);
  const answer = (await messagesOf(response)).find((m) => 'result' in m || 'error' in m);
  return answer as { result?: { content?: Array<{ text?: string }>; isError?: boolean }; error?: unknown };
}

const toolNamesOf = async (url: URL, session: string): Promise<string[]> => {
  const answer = (await request(url, session, 'tools/list', {})) as {
    result?: { tools?: { name: string }[] };
  };
  return answer.result?.tools?.map((t) => t.name) ?? [];
};

/** A session's GET stream on one replica, collecting the methods of what it carries. */
async function openStream(url: URL, session: string) {
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
  });
  expect(response.status).toBe(200);
  const methods: string[] = [];
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  void (async () => {
    for (;;) {
      const chunk = await reader?.read().catch(() => undefined);
      if (chunk === undefined || chunk.done) return;
      buffered += chunk.value;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('data: '))
          methods.push(String((JSON.parse(line.slice(6)) as { method?: unknown }).method));
      }
    }
  })();
  clients.push({ close: async () => reader?.cancel() });
  return { methods };
}

describe('upstream calls across replicas (Redis backend)', () => {
  it('2025 era: a session unlocked on replica A calls the upstream tool through replica B', async () => {
    const c = await cluster();
    const [a, b] = c.replicas;
    if (a === undefined || b === undefined) throw new Error('two replicas expected');
    const session = await openSession(a.url);
    // Locked on B as on A until get_info.
    const locked = await request(b.url, session, 'tools/call', { name: ECHO, arguments: { text: 'early' } });
    expect(locked.result?.isError).toBe(true);
    expect(locked.result?.content?.[0]?.text).toContain('skill_live_get_info');

    const info = await request(a.url, session, 'tools/call', { name: 'skill_live_get_info', arguments: {} });
    expect(info.result?.content?.[0]?.text).toContain(ECHO);
    expect(await toolNamesOf(b.url, session)).toContain(ECHO);
    const before = await counter(b.base, 'skillgate_upstream_calls_total');
    const echoed = await request(b.url, session, 'tools/call', {
      name: ECHO,
      arguments: { text: 'through B' },
    });
    expect(echoed.result?.isError).toBeUndefined();
    expect(echoed.result?.content?.[0]?.text).toBe('through B');
    // B's own connection made the call.
    expect(await counter(b.base, 'skillgate_upstream_calls_total')).toBe(before + 1);
  });

  it('2026-07-28: get_info on replica A, call_skill_tool on replica B', async () => {
    const c = await cluster();
    const [a, b] = c.replicas;
    if (a === undefined || b === undefined) throw new Error('two replicas expected');
    const onA: V2TestClient = await connectV2(a.url, { era: 'modern' });
    const onB: V2TestClient = await connectV2(b.url, { era: 'modern' });
    clients.push(onA, onB);
    const info = await onA.client.callTool({ name: 'skill_live_get_info', arguments: {} });
    expect(JSON.stringify(info.content)).toContain('call_skill_tool');
    const echoed = await onB.client.callTool({
      name: 'call_skill_tool',
      arguments: { skill: 'live', tool: 'echo', arguments: { text: 'modern through B' } },
    });
    expect(echoed.isError).toBeFalsy();
    expect(echoed.content).toEqual([{ type: 'text', text: 'modern through B' }]);
  });

  it("notifies a session unlocked on A, whose stream is on B, when the upstream's tools change", async () => {
    const c = await cluster();
    const [a, b] = c.replicas;
    if (a === undefined || b === undefined) throw new Error('two replicas expected');
    const session = await openSession(a.url);
    await request(a.url, session, 'tools/call', { name: 'skill_live_get_info', arguments: {} });
    // Another session that never unlocked the skill, its stream on B too: it must hear nothing.
    const bystander = await openSession(a.url);
    const stream = await openStream(b.url, session);
    const quiet = await openStream(b.url, bystander);

    // The change comes from the upstream itself (a client of its own), not through either replica.
    const direct = new Client({ name: 'upstream-changer', version: '1.0.0' });
    await direct.connect(new StreamableHTTPClientTransport(new URL(upstream.url)));
    clients.push(direct);
    await direct.callTool({ name: 'add_tool', arguments: { name: 'fresh' } });

    await waitFor(() => stream.methods.includes('notifications/tools/list_changed'), {
      what: 'list_changed on the stream held by B',
    });
    for (const replica of [a, b]) {
      await waitFor(async () => (await toolNamesOf(replica.url, session)).includes(FRESH), {
        what: `the new call tool on ${replica.base}`,
      });
    }
    const fresh = await request(b.url, session, 'tools/call', { name: FRESH, arguments: { text: 'new' } });
    expect(fresh.result?.content?.[0]?.text).toBe('new');
    // Round trips through both replicas: anything still in flight would have arrived by now.
    await toolNamesOf(a.url, bystander);
    await toolNamesOf(b.url, bystander);
    expect(quiet.methods).not.toContain('notifications/tools/list_changed');
    // Once, though both replicas rebuilt their catalogs from the same change.
    expect(stream.methods.filter((m) => m === 'notifications/tools/list_changed')).toHaveLength(1);
  });
});
