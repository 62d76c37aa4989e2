import { type HttpTestUpstream, startHostileUpstream, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

// An HTTP upstream answers a call with a result nested 20,000 arrays deep (40 KB of JSON, under every byte
// bound). Writing it overflows the stack: a 2025-era session's POST was never answered (the call hung until
// the client gave up), and with a credential configured (its secrets scrubbed from answers) the call failed
// as an internal error. The caller gets a tool error with a reason, and everyone else is served.
let gw: TestGateway;
let hostile: HttpTestUpstream;
const DEEP = 20_000;
// Past this the client gives up: on the old code the 2025-era answer never came.
const CLIENT_TIMEOUT = { timeout: 15_000 };

beforeAll(async () => {
  hostile = await startHostileUpstream(['--name', 'deep', '--tools', 'ping']);
  gw = await startTestGateway(
    {
      // Every tool listed to a 2026-07-28 caller (no session to unlock a skill in).
      skills: { modern_disclosure: 'eager' },
      upstreams: [
        { id: 'deep', url: hostile.url, timeout_seconds: 30 },
        // The same server with a credential: its answers are scrubbed of it before a caller sees them.
        {
          id: 'keyed',
          url: hostile.url,
          timeout_seconds: 30,
          headers_from_env: { Authorization: 'KEYED_AUTH' },
        },
      ],
    },
    { ...process.env, KEYED_AUTH: 'Bearer deep-result-credential-1234' },
  );
  await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state === 'ready'), {
    what: 'both upstreams ready',
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await hostile?.stop();
});

const tooDeep = {
  reason: 'UPSTREAM_ERROR',
  message: expect.stringContaining('nests deeper than 256 levels'),
};

describe('an upstream result nested thousands of levels deep', () => {
  for (const [upstream, tool] of [
    ['deep', 'deep_json'],
    ['deep', 'deep_sse'],
    ['keyed', 'deep_json'],
  ] as const) {
    it(`${upstream}/${tool}: a 2025-era caller gets a tool error with its reason, and others are served`, async () => {
      const attacker = await connectClient(gw.url, { name: 'attacker' });
      const other = await connectClient(gw.url, { name: 'bystander' });
      try {
        await attacker.client.callTool({ name: `skill_${upstream}_get_info`, arguments: {} });
        await other.client.callTool({ name: `skill_${upstream}_get_info`, arguments: {} });
        const [deep, ping] = await Promise.all([
          attacker.client.callTool(
            { name: `skill_${upstream}_call_${tool}`, arguments: { depth: DEEP } },
            undefined,
            CLIENT_TIMEOUT,
          ),
          other.client.callTool({ name: `skill_${upstream}_call_ping`, arguments: {} }),
        ]);
        expect(deep.isError).toBe(true);
        expect(deep.structuredContent).toMatchObject({ ...tooDeep, upstream, tool });
        expect(textOf(ping)).toBe('deep:ping:{}');
        // The session still works.
        const again = await attacker.client.callTool({ name: `skill_${upstream}_call_ping`, arguments: {} });
        expect(textOf(again)).toBe('deep:ping:{}');
      } finally {
        await attacker.close();
        await other.close();
      }
    });
  }

  it('a 2026-07-28 caller gets the same tool error', async () => {
    const client = await connectV2(gw.url, { era: 'modern' });
    try {
      await client.client.callTool({ name: 'skill_deep_get_info', arguments: {} });
      const deep = await client.client.callTool(
        { name: 'skill_deep_call_deep_json', arguments: { depth: DEEP } },
        CLIENT_TIMEOUT,
      );
      expect(deep.isError).toBe(true);
      expect(deep.structuredContent).toMatchObject(tooDeep);
    } finally {
      await client.close();
    }
  });

  it('a result nested 200 levels deep is still answered whole', async () => {
    const client = await connectClient(gw.url);
    try {
      await client.client.callTool({ name: 'skill_deep_get_info', arguments: {} });
      const result = await client.client.callTool({
        name: 'skill_deep_call_deep_json',
        arguments: { depth: 200 },
      });
      expect(result.isError).not.toBe(true);
      expect(JSON.stringify(result.structuredContent)).toBe(`{"deep":${'['.repeat(200)}${']'.repeat(200)}}`);
    } finally {
      await client.close();
    }
  });
});
