import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AuthorizationServer,
  type HttpTestUpstream,
  startAuthorizationServer,
  startHttpUpstream,
  writeRegistrySkills,
} from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/testGateway.js';

// An upstream with `auth` fetches its listing credential as soon as it starts, and the credential events are
// counted in the metrics. The upstreams used to start before the first catalog was built and the metrics
// made: with a catalog that takes a while to build (491 skills here), the token came back first, counting it
// threw "the metrics is read before it is bound", and the upstream started down (tools missing, a retry a
// second later) — in the full suite, test/credentials/clientCredentials.test.ts failed that way.

const REPORTS = { id: 'skillgate-reports', secret: 'reports-secret-0123456789' };

let server: AuthorizationServer;
let reports: HttpTestUpstream;
let root: string;
let gw: TestGateway;
const logs: string[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'skillgate-start-'));
  await writeRegistrySkills({ root });
  server = await startAuthorizationServer({ clients: [REPORTS] });
  reports = await startHttpUpstream(['--require-audience', server.issuer]);
  gw = await startTestGateway(
    {
      skills: { roots: [root] },
      upstreams: [
        {
          id: 'reports',
          url: reports.url,
          auth: {
            client_credentials: {
              token_endpoint: server.tokenEndpoint,
              client_id_env: 'R_ID',
              client_secret_env: 'R_SECRET',
            },
          },
        },
      ],
    },
    { ...process.env, R_ID: REPORTS.id, R_SECRET: REPORTS.secret },
    logs,
  );
}, 60_000);
afterAll(async () => {
  await gw?.close();
  await Promise.all([reports?.stop(), server?.close(), rm(root, { recursive: true, force: true })]);
});

describe('an upstream with client credentials beside a large catalog', () => {
  it('is up with its tools once the first attempts settle, its token fetch counted', async () => {
    const ready = (await (await fetch(`${gw.base}/readyz`)).json()) as {
      upstreams?: Array<{ id: string; state: string }>;
    };
    expect(ready.upstreams).toEqual([
      expect.objectContaining({ id: 'reports', state: 'ready', last_error: null }),
    ]);
    expect(logs.join('\n')).not.toContain('is read before it is bound');
    const metrics = await (await fetch(`${gw.base}/metrics`)).text();
    expect(metrics).toMatch(/skillgate_credential_events_total\{[^}]*\} 1/);
  });
});
