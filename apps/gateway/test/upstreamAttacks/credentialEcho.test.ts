import {
  HOSTILE_UPSTREAM,
  type HttpTestUpstream as HostileUpstreamProcess,
  startHostileUpstream,
  waitFor,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway, textOf } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

// An upstream echoes the credentials the gateway configured for it (`403 invalid API key <value>`): in a
// tool result, its structuredContent, a progress message, a JSON-RPC error, an HTTP error of a call, its
// tool descriptions. The operator page redacted them; what a tenant got did not.
const HTTP_SECRET = 'leaky-upstream-secret-0001';
const STDIO_SECRET = 'stdio-upstream-secret-0002';
const SECRETS = [HTTP_SECRET, STDIO_SECRET];
let gw: TestGateway;
let http: HostileUpstreamProcess;

beforeAll(async () => {
  http = await startHostileUpstream(['--name', 'leaky']);
  gw = await startTestGateway(
    {
      upstreams: [
        { id: 'leaky', url: http.url, headers_from_env: { Authorization: 'LEAKY_AUTH' } },
        {
          id: 'leakyio',
          command: [process.execPath, HOSTILE_UPSTREAM, '--name', 'leakyio', '--leak-env', 'API_KEY'],
          env_from: { API_KEY: 'LEAKYIO_KEY' },
        },
      ],
    },
    { ...process.env, LEAKY_AUTH: `Bearer ${HTTP_SECRET}`, LEAKYIO_KEY: STDIO_SECRET },
  );
  await waitFor(() => gw.gateway.upstreams.snapshots().every((s) => s.state === 'ready'), {
    what: 'both upstreams ready',
    timeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await http?.stop();
});

const expectNoSecret = (value: unknown): void => {
  const seen = JSON.stringify(value);
  for (const secret of SECRETS) expect(seen).not.toContain(secret);
};

describe('credentials echoed to tenants', () => {
  for (const id of ['leaky', 'leakyio'] as const) {
    it(`${id}: a configured credential never reaches a caller: results, progress, errors, listings`, async () => {
      const client = await connectClient(gw.url);
      try {
        const info = await client.client.callTool({ name: `skill_${id}_get_info`, arguments: {} });
        expectNoSecret(info);
        expect(textOf(info)).toContain('[redacted]');
        const progress: unknown[] = [];
        const leaked = await client.client.callTool(
          { name: `skill_${id}_call_leak`, arguments: {} },
          undefined,
          { onprogress: (p) => progress.push(p) },
        );
        expect(textOf(leaked)).toContain('invalid API key [redacted]');
        expectNoSecret(leaked);
        expect(progress.length).toBe(1);
        expectNoSecret(progress);
        const failed = await client.client.callTool({ name: `skill_${id}_call_leak_error`, arguments: {} });
        expect(failed.isError).toBe(true);
        expect(textOf(failed)).toContain('[redacted]');
        expectNoSecret(failed);
        expectNoSecret(await client.client.listTools());
      } finally {
        await client.close();
      }
    });
  }

  it('an HTTP 403 of a call that quotes the key reaches the caller redacted (2026-07-28 too)', async () => {
    const modern = await connectV2(gw.url, { era: 'modern' });
    try {
      const denied = await modern.client.callTool({
        name: 'call_skill_tool',
        arguments: { skill: 'leaky', tool: 'deny403', arguments: {} },
      });
      expect(denied.isError).toBe(true);
      expectNoSecret(denied);
      expectNoSecret(gw.gateway.upstreams.snapshots());
    } finally {
      await modern.close();
    }
  });
});
