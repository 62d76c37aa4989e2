import {
  type HttpTestUpstream as HostileUpstreamProcess,
  startHostileUpstream,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// A caller that calls a tool answering an endless event in a loop: each call costs the gateway reading up to
// the bound (about 1.1 MiB) and cutting it, and 8 such callers made another tenant's upstream calls 3-6x
// slower at their p99 (pnpm bench:attacks, "SSE flood"). After three cut answers within a minute, that
// principal's calls of the tool are refused at once, without the upstream; other principals are not.
let gw: TestGateway;
let hostile: HostileUpstreamProcess;
const ATTACKER = 'attacker-token-7d1e9a2c4b';
const OTHER = 'other-token-3c8f0b6e5a';

beforeAll(async () => {
  hostile = await startHostileUpstream(['--name', 'flood']);
  gw = await startTestGateway(
    {
      auth: {
        tokens: [
          { name: 'attacker', token_env: 'ATTACKER_TOKEN' },
          { name: 'other', token_env: 'OTHER_TOKEN' },
        ],
      },
      upstreams: [{ id: 'flood', url: hostile.url, timeout_seconds: 120 }],
    },
    { ...process.env, ATTACKER_TOKEN: ATTACKER, OTHER_TOKEN: OTHER },
  );
  await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state === 'ready'), {
    what: 'the upstream ready',
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await hostile?.stop();
});

const streamsClosed = () =>
  hostile.stderr.filter((line) => line.startsWith('stream sse_flood closed')).length;

describe('a caller that keeps getting answers over max_result_bytes', () => {
  it('is refused that tool after three cut answers, before the upstream is asked; another principal is not', async () => {
    const attacker = await connectClient(gw.url, { token: ATTACKER });
    const other = await connectClient(gw.url, { token: OTHER });
    try {
      const flood = (client: typeof attacker) =>
        client.client.callTool({ name: 'skill_flood_call_sse_flood', arguments: {} });
      await attacker.client.callTool({ name: 'skill_flood_get_info', arguments: {} });
      await other.client.callTool({ name: 'skill_flood_get_info', arguments: {} });
      for (let i = 1; i <= 3; i++) {
        const cut = await flood(attacker);
        expect(cut.structuredContent).toMatchObject({ reason: 'RESULT_TOO_LARGE' });
        await waitFor(() => streamsClosed() === i, { what: `stream ${i} closed` });
      }
      const refused = await flood(attacker);
      expect(refused.structuredContent).toMatchObject({ reason: 'RESULT_TOO_LARGE' });
      expect(JSON.stringify(refused.content)).toContain('refused to this caller');
      // Another principal's call of the same tool still reaches the upstream (and is cut there).
      const theirs = await flood(other);
      expect(theirs.structuredContent).toMatchObject({ reason: 'RESULT_TOO_LARGE' });
      expect(JSON.stringify(theirs.content)).not.toContain('refused');
      await waitFor(() => streamsClosed() === 4, { what: "the other principal's stream closed" });
      // The attacker's other tools of the same upstream are served.
      const fine = await attacker.client.callTool({
        name: 'skill_flood_call_redos',
        arguments: { length: 3 },
      });
      expect(fine.isError).not.toBe(true);
      expect(streamsClosed()).toBe(4);
    } finally {
      await attacker.close();
      await other.close();
    }
  });
});
