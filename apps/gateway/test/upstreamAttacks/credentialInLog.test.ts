import { type HttpTestUpstream, startHttpUpstream, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// An upstream that answers 403 "invalid API key <value>" put the configured headers_from_env value, in clear,
// into the gateway's own warn line ("upstream down"): the answer to tenants was scrubbed, the log was not (the
// logger redacted only the gateway's tokens). One redactor now holds every configured secret.
const API_KEY = 'billing-key-7d41c9e0a2b35f86';
let gw: TestGateway;
let billing: HttpTestUpstream;
const lines: string[] = [];

beforeAll(async () => {
  billing = await startHttpUpstream(['--name', 'billing', '--revocable']);
  gw = await startTestGateway(
    {
      // The key is no Bearer value and no known token shape: only the configured value can be recognised.
      upstreams: [{ id: 'billing', url: billing.url, headers_from_env: { 'X-API-Key': 'BILLING_KEY' } }],
      logging: { level: 'debug' },
    },
    { ...process.env, BILLING_KEY: API_KEY },
    lines,
  );
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await billing?.stop();
});

describe('upstream credentials in the gateway log', () => {
  it('an upstream refusing the key with a 403 that quotes it does not put it in the log; another tenant is served', async () => {
    const client = await connectClient(gw.url);
    try {
      await client.client.callTool({ name: 'skill_billing_get_info', arguments: {} });
      // The provider revokes the key: the gateway's next request to it (the relisting) is refused.
      await client.client.callTool({ name: 'skill_billing_call_revoke_key', arguments: {} });
      await waitFor(() => gw.gateway.upstreams.snapshots().some((s) => s.state === 'down'), {
        what: 'the upstream down',
      });
      const down = lines.find((l) => l.includes('"msg":"upstream down"'));
      expect(down).toContain('invalid API key [redacted]');
      expect(lines.join('\n')).not.toContain(API_KEY);
      // A tenant's skill still answers meanwhile.
      const probe = await client.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      expect(probe.isError).not.toBe(true);
    } finally {
      await client.close();
    }
    expect(lines.join('\n')).not.toContain(API_KEY);
  });
});
