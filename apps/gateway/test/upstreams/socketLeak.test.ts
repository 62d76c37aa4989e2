import { readFileSync } from 'node:fs';
import { type HttpTestUpstream, startHttpUpstream, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

const gateways: TestGateway[] = [];
const servers: HttpTestUpstream[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

// Established TCP connections to `port` from any local port (the gateway's side of its upstream sockets).
function connectionsTo(port: number): number {
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, remote, state] = line.trim().split(/\s+/);
      if (local === undefined || remote === undefined || state !== '01') continue;
      const remotePort = Number.parseInt(remote.split(':').pop() ?? '', 16);
      const localPort = Number.parseInt(local.split(':').pop() ?? '', 16);
      if (remotePort === port && localPort !== port) count += 1;
    }
  }
  return count;
}

describe('timed-out upstream calls', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`timed-out calls to an upstream that never answers them leak no sockets (${era} era); another call is served meanwhile`, async () => {
      const http = await startHttpUpstream(['--era', era]);
      servers.push(http);
      const port = Number(new URL(http.url).port);
      const gw = await startTestGateway({
        upstreams: [{ id: 'slow', url: http.url, timeout_seconds: 1, tools: ['echo', 'sleep'] }],
        clients: [{ match: { name: '*' }, disclosure: 'eager' }],
      });
      gateways.push(gw);
      const c = await connectClient(gw.url);
      const other = await connectClient(gw.url);
      try {
        const echo = () =>
          other.client.callTool({ name: 'skill_slow_call_echo', arguments: { text: 'ok' } }).then(textOf);
        expect(await echo()).toBe('ok');
        const idle = connectionsTo(port);
        // Three calls the upstream never answers: each times out after timeout_seconds.
        const results = await Promise.all(
          [1, 2, 3].map(() =>
            c.client.callTool({ name: 'skill_slow_call_sleep', arguments: { ms: 600_000 } }),
          ),
        );
        for (const result of results) expect(textOf(result)).toContain('UPSTREAM_TIMEOUT');
        expect(await echo()).toBe('ok');
        // Their requests were aborted: no more sockets to the upstream than an idle connection holds.
        await waitFor(() => connectionsTo(port) <= idle, {
          what: `sockets to the upstream back to ${idle} (now ${connectionsTo(port)})`,
          timeoutMs: 10_000,
        });
      } finally {
        await c.close();
        await other.close();
      }
    });
  }
});
