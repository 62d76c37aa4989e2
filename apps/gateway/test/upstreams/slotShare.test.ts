import { HOSTILE_PROCESS_UPSTREAM, waitFor } from '@skillgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';

const HOSTILE = HOSTILE_PROCESS_UPSTREAM;
const ALICE = 'alice-token-0123456789-abcdefghij';
const BOB = 'bob-token-0123456789-abcdefghijkl';

const gateways: TestGateway[] = [];
afterEach(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

describe('upstream call slots per principal', () => {
  it("one tenant cannot take every upstream slot: alice's flood holds at most max_concurrent_per_principal, bob's instant call is served at once", async () => {
    const gw = await startTestGateway(
      {
        upstreams: [
          {
            id: 'shared',
            command: [process.execPath, HOSTILE, 'spy'],
            timeout_seconds: 600,
            max_concurrent: 4,
            max_concurrent_per_principal: 2,
          },
        ],
        auth: {
          tokens: [
            { name: 'alice', token_env: 'T_ALICE', skills: ['*'] },
            { name: 'bob', token_env: 'T_BOB', skills: ['*'] },
          ],
        },
        clients: [{ match: { principal: '*' }, disclosure: 'eager' }],
      },
      { ...process.env, T_ALICE: ALICE, T_BOB: BOB },
    );
    gateways.push(gw);
    const alice = await connectClient(gw.url, { token: ALICE });
    const bob = await connectClient(gw.url, { token: BOB });
    try {
      // Six long calls: more than every slot of the upstream.
      const flood = Array.from({ length: 6 }, () =>
        alice.client
          .callTool({ name: 'skill_shared_call_sleep', arguments: { ms: 600_000 } })
          .catch(() => undefined),
      );
      const sleeping = async () =>
        Number(textOf(await bob.client.callTool({ name: 'skill_shared_call_sleeping', arguments: {} })));
      // Alice holds her share (two), no more; bob's calls take the slots left.
      await waitFor(async () => (await sleeping()) === 2, { what: "alice's calls at the upstream" });
      const echoed = await bob.client.callTool({
        name: 'skill_shared_call_echo',
        arguments: { text: 'bob' },
      });
      expect(textOf(echoed)).toBe('bob');
      expect(await sleeping()).toBe(2);
      void flood;
    } finally {
      await alice.close();
      await bob.close();
    }
  });

  // The default share was 4 whatever max_concurrent: with max_concurrent 4 one tenant's four 15 s calls held
  // every slot, and another tenant's quick call waited 14.1 s. The default is now half the slots.
  it("with max_concurrent 4 and the default share, alice's four long calls leave bob a slot: his call starts within 3 s", async () => {
    const gw = await startTestGateway(
      {
        upstreams: [
          {
            id: 'shared',
            command: [process.execPath, HOSTILE, 'spy'],
            timeout_seconds: 600,
            max_concurrent: 4,
          },
        ],
        auth: {
          tokens: [
            { name: 'alice', token_env: 'T_ALICE', skills: ['*'] },
            { name: 'bob', token_env: 'T_BOB', skills: ['*'] },
          ],
        },
        clients: [{ match: { principal: '*' }, disclosure: 'eager' }],
      },
      { ...process.env, T_ALICE: ALICE, T_BOB: BOB },
    );
    gateways.push(gw);
    const alice = await connectClient(gw.url, { token: ALICE });
    const bob = await connectClient(gw.url, { token: BOB });
    try {
      const flood = Array.from({ length: 4 }, () =>
        alice.client
          .callTool({ name: 'skill_shared_call_sleep', arguments: { ms: 600_000 } })
          .catch(() => undefined),
      );
      const sleeping = async () =>
        Number(textOf(await bob.client.callTool({ name: 'skill_shared_call_sleeping', arguments: {} })));
      await waitFor(async () => (await sleeping()) === 2, { what: "alice's calls at the upstream" });
      const started = performance.now();
      const echoed = await bob.client.callTool({
        name: 'skill_shared_call_echo',
        arguments: { text: 'bob' },
      });
      expect(textOf(echoed)).toBe('bob');
      expect(performance.now() - started).toBeLessThan(3000);
      // Alice's other two wait for her own slots, not bob's.
      expect(await sleeping()).toBe(2);
      void flood;
    } finally {
      await alice.close();
      await bob.close();
    }
  });
});
