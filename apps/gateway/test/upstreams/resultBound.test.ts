import { type HttpTestUpstream, startHttpUpstream, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// An HTTP upstream's result is measured against max_result_bytes by its JSON, not by the bytes it came in:
// the gateway skips writing out a result whose text is too small to pass the bound
// (packages/upstreams/src/calls/upstreamCall.ts), and must still refuse every one that does pass it.
const gateways: TestGateway[] = [];
const servers: HttpTestUpstream[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe('max_result_bytes of an HTTP upstream', () => {
  for (const era of ['modern', 'legacy'] as const) {
    it(`refuses a result just over the bound and passes one well under it (${era} era)`, async () => {
      const http = await startHttpUpstream(['--era', era]);
      servers.push(http);
      const gw = await startTestGateway({
        upstreams: [{ id: 'remote', url: http.url, max_result_bytes: 4096 }],
      });
      gateways.push(gw);
      await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state === 'ready'), {
        what: 'the upstream ready',
      });
      const caller = await connectClient(gw.url);
      try {
        await caller.client.callTool({ name: 'skill_remote_get_info', arguments: {} });
        const call = (bytes: number) =>
          caller.client.callTool({ name: 'skill_remote_call_big', arguments: { bytes } });
        // Over the bound, but well within what the answer reader takes in (the bound + 64 KiB).
        const over = await call(4200);
        expect(over.isError).toBe(true);
        expect(over.structuredContent).toMatchObject({ reason: 'RESULT_TOO_LARGE' });
        const under = await call(500);
        expect(under.isError).toBeFalsy();
        expect(JSON.stringify(under.content)).toContain('x'.repeat(500));
      } finally {
        await caller.close();
      }
    });
  }
});
