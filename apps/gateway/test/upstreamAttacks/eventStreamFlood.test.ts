import {
  type HttpTestUpstream as HostileUpstreamProcess,
  startHostileUpstream,
  TEST_UPSTREAM,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// An HTTP upstream answers a call with an event stream that never ends: one endless event (the SDK's
// parser kept it whole: 565 MB for one call), or endless comment lines (no event, no end). And a
// JSON-RPC error of 12 MB passed the 1 MiB max_result_bytes to the caller whole.
let gw: TestGateway;
let hostile: HostileUpstreamProcess;
const MAX_RESULT_BYTES = 1_048_576;

beforeAll(async () => {
  hostile = await startHostileUpstream(['--name', 'flood']);
  gw = await startTestGateway({
    upstreams: [
      { id: 'flood', url: hostile.url, timeout_seconds: 120, max_result_bytes: MAX_RESULT_BYTES },
      { id: 'fine', command: [process.execPath, TEST_UPSTREAM, '--stdio'] },
    ],
  });
  await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state === 'ready'), {
    what: 'both upstreams ready',
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await hostile?.stop();
});

describe('unbounded event streams and errors from an HTTP upstream', () => {
  for (const tool of ['sse_flood', 'sse_trickle'] as const) {
    it(`${tool}: the stream is cut at its bound, the call fails at once as RESULT_TOO_LARGE, others are served`, async () => {
      const attacker = await connectClient(gw.url, { name: 'attacker' });
      const other = await connectClient(gw.url, { name: 'bystander' });
      try {
        await attacker.client.callTool({ name: 'skill_flood_get_info', arguments: {} });
        await other.client.callTool({ name: 'skill_fine_get_info', arguments: {} });
        const [flooded, echoed] = await Promise.all([
          attacker.client.callTool({ name: `skill_flood_call_${tool}`, arguments: {} }),
          other.client.callTool({ name: 'skill_fine_call_echo', arguments: { text: 'still here' } }),
        ]);
        expect(flooded.isError).toBe(true);
        expect(flooded.structuredContent).toMatchObject({ reason: 'RESULT_TOO_LARGE', upstream: 'flood' });
        expect(textOf(echoed)).toBe('still here');
        // The upstream saw its stream closed: the gateway stopped reading, it did not just stop listening.
        await waitFor(() => hostile.stderr.some((line) => line.startsWith(`stream ${tool} closed`)), {
          what: 'the upstream stream closed',
        });
        const sent = Number(
          /after (\d+) bytes/.exec(hostile.stderr.find((l) => l.includes(tool)) ?? '')?.[1],
        );
        // What was sent before the cut reached the socket buffers too; far below the 565 MB of the attack.
        expect(sent).toBeLessThan(64 * MAX_RESULT_BYTES);
        // The upstream stays usable.
        const again = await attacker.client.callTool({
          name: 'skill_flood_call_redos',
          arguments: { length: 3 },
        });
        expect(again.isError).not.toBe(true);
      } finally {
        await attacker.close();
        await other.close();
      }
    });
  }

  it('a 12 MB JSON-RPC error message is cut before it reaches the caller', async () => {
    const client = await connectClient(gw.url);
    try {
      await client.client.callTool({ name: 'skill_flood_get_info', arguments: {} });
      const result = await client.client.callTool({
        name: 'skill_flood_call_big_error',
        arguments: { bytes: 12_000_000 },
      });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result).length).toBeLessThan(MAX_RESULT_BYTES);
    } finally {
      await client.close();
    }
  });
});
