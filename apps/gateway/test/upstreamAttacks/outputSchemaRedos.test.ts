import { monitorEventLoopDelay } from 'node:perf_hooks';
import { HOSTILE_UPSTREAM, TEST_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// An upstream lists a tool whose outputSchema has the pattern `^(a+)+$` and answers `a…a!`: validating it
// with a backtracking engine takes time exponential in the length (26 characters took 9.4 s, 34 froze the
// gateway), on the event loop every other client shares.
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({
    upstreams: [
      { id: 'evil', command: [process.execPath, HOSTILE_UPSTREAM, '--name', 'evil'] },
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
});

describe('ReDoS through an upstream outputSchema', () => {
  it('a catastrophic outputSchema pattern never blocks the event loop; its result passes on; others are served', async () => {
    const attacker = await connectClient(gw.url, { name: 'attacker' });
    const other = await connectClient(gw.url, { name: 'bystander' });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    try {
      await attacker.client.callTool({ name: 'skill_evil_get_info', arguments: {} });
      await other.client.callTool({ name: 'skill_fine_get_info', arguments: {} });
      delay.enable();
      // 27 characters: seconds of backtracking on the old code, so the test ends there too.
      const [hostile, healthz, echoed] = await Promise.all([
        attacker.client.callTool({ name: 'skill_evil_call_redos', arguments: { length: 27 } }),
        fetch(`${gw.base}/healthz`),
        other.client.callTool({ name: 'skill_fine_call_echo', arguments: { text: 'still here' } }),
      ]);
      delay.disable();
      // The event loop never stood still for a second (the backtracking held it for seconds).
      expect(delay.max / 1e6).toBeLessThan(1000);
      expect(hostile.isError).not.toBe(true);
      expect(hostile.structuredContent).toEqual({ s: `${'a'.repeat(27)}!` });
      expect(healthz.status).toBe(200);
      expect(textOf(echoed)).toBe('still here');
    } finally {
      await attacker.close();
      await other.close();
    }
  });
});
