import { HOSTILE_PROCESS_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

const HOSTILE = HOSTILE_PROCESS_UPSTREAM;

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

interface Readiness {
  upstreams: { id: string; state: string; tools: number; last_error: string | null }[];
}

describe('one upstream cannot hold the start', () => {
  it('a stdio upstream that never answers initialize: the gateway listens at once, /readyz names it connecting, a healthy upstream serves meanwhile', async () => {
    // timeout_seconds is the connect bound too: a day of waiting before the fix.
    const gw = await startTestGateway(
      {
        upstreams: [
          { id: 'mute', command: [process.execPath, HOSTILE, 'mute'], timeout_seconds: 86_400 },
          { id: 'healthy', command: [process.execPath, HOSTILE, 'spy'] },
        ],
        clients: [{ match: { name: '*' }, disclosure: 'eager' }],
      },
      process.env,
      undefined,
      { awaitUpstreams: false },
    );
    gateways.push(gw);
    const readiness = async (): Promise<{ status: number; body: Readiness }> => {
      const response = await fetch(`${gw.base}/readyz`);
      return { status: response.status, body: (await response.json()) as Readiness };
    };
    expect((await readiness()).status).toBe(200);
    const c = await connectClient(gw.url);
    try {
      await waitFor(
        async () => (await c.client.listTools()).tools.some((t) => t.name === 'skill_healthy_call_echo'),
        { what: 'the healthy upstream listed', timeoutMs: 30_000 },
      );
      const echoed = await c.client.callTool({ name: 'skill_healthy_call_echo', arguments: { text: 'hi' } });
      expect(textOf(echoed)).toBe('hi');
      // As many tools as the healthy upstream lists (eager: every one of them in the client's list).
      const listed = (await c.client.listTools()).tools.filter((t) =>
        t.name.startsWith('skill_healthy_call_'),
      );
      expect(listed.length).toBeGreaterThan(0);
      const { status, body } = await readiness();
      expect(status).toBe(200);
      expect(body.upstreams).toEqual([
        { id: 'mute', state: 'connecting', tools: 0, last_error: null },
        { id: 'healthy', state: 'ready', tools: listed.length, last_error: null },
      ]);
      // Its skill is listed, and says it is still connecting.
      const info = await c.client.callTool({ name: 'skill_mute_get_info', arguments: {} });
      expect(textOf(info)).toContain('connecting');
    } finally {
      await c.close();
    }
  });
});
