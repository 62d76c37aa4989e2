import { HOSTILE_PROCESS_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

const HOSTILE = HOSTILE_PROCESS_UPSTREAM;

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

interface DownLine {
  upstream?: string;
  msg?: string;
  retryInMs?: number;
}

describe('a crash-looping upstream', () => {
  it('is restarted with a doubling backoff although every handshake succeeds; a healthy upstream serves meanwhile', async () => {
    const lines: string[] = [];
    const gw = await startTestGateway(
      {
        upstreams: [
          { id: 'crashy', command: [process.execPath, HOSTILE, 'crash'] },
          { id: 'healthy', command: [process.execPath, HOSTILE, 'spy'] },
        ],
        clients: [{ match: { name: '*' }, disclosure: 'eager' }],
      },
      process.env,
      lines,
    );
    gateways.push(gw);
    const downs = (): number[] =>
      lines
        .map((line) => JSON.parse(line) as DownLine)
        .filter((line) => line.upstream === 'crashy' && line.msg === 'upstream down')
        .map((line) => line.retryInMs ?? -1);
    await waitFor(() => downs().length >= 3, { what: 'three crashes', timeoutMs: 30_000 });
    // Each crash came after a completed handshake (the server exits after its first tools/list), and still
    // the delay doubles: it is reset only after a connection stayed up for a while.
    expect(downs().slice(0, 3)).toEqual([1000, 2000, 4000]);
    const c = await connectClient(gw.url);
    try {
      const echoed = await c.client.callTool({
        name: 'skill_healthy_call_echo',
        arguments: { text: 'fine' },
      });
      expect(textOf(echoed)).toBe('fine');
    } finally {
      await c.close();
    }
  });
});
