import { waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

// scripts.max_concurrent_per_principal defaulted to 2 whatever scripts.max_concurrent: with max_concurrent 2
// one tenant's long scripts held every slot, and another tenant's quick script waited for one to end. The
// default is now half the slots (at most 2).
const ALICE = 'alice-script-token-0123456789';
const BOB = 'bob-script-token-0123456789ab';

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

describe('script slots per principal', () => {
  it("with max_concurrent 2 and the default share, alice's long scripts leave bob a slot: his run starts within 3 s", async () => {
    const gw = await startTestGateway(
      {
        scripts: { max_concurrent: 2, queue_timeout_seconds: 120 },
        auth: {
          tokens: [
            { name: 'alice', token_env: 'T_ALICE', skills: ['*'] },
            { name: 'bob', token_env: 'T_BOB', skills: ['*'] },
          ],
        },
        rate_limit: { requests_per_second: 0 },
      },
      { ...process.env, T_ALICE: ALICE, T_BOB: BOB },
    );
    gateways.push(gw);
    const alice = await connectClient(gw.url, { token: ALICE });
    const bob = await connectClient(gw.url, { token: BOB });
    try {
      await alice.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      await bob.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      const long = Array.from({ length: 4 }, () =>
        alice.client
          .callTool({ name: 'skill_gateway-probe_run_hang_sh', arguments: { timeout: 60 } }, undefined, {
            timeout: 120_000,
          })
          .catch(() => undefined),
      );
      // Alice's runs hold her share and the rest of them wait, before bob asks.
      const { runner } = gw.gateway;
      await waitFor(() => runner.active >= 1 && runner.active + runner.queued === 4, {
        what: "alice's four runs started or queued",
      });
      expect(runner.active).toBe(1);
      const started = performance.now();
      const echoed = await bob.client.callTool({
        name: 'skill_gateway-probe_run_echo-args_py',
        arguments: { args: ['bob'] },
      });
      expect(echoed.isError).not.toBe(true);
      expect(textOf(echoed)).toContain('bob');
      expect(performance.now() - started).toBeLessThan(3000);
      void long;
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
