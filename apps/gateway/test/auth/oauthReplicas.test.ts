import { type RedisServer, startRedisServer } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderClient, startTestProvider, type TestProvider } from '../helpers/oidcProvider.js';
import { type ReplicaCluster, startReplicaCluster } from '../helpers/replicaCluster.js';
import { connectClient, textOf, toolNames } from '../helpers/testGateway.js';
import { connectV2 } from '../helpers/v2Client.js';

// Behind the balancer each replica has its own origin: the audience is configured, not derived.
const AUDIENCE = 'https://skillgate.replicas.test/mcp';
const AGENT: ProviderClient = {
  id: 'replica-agent',
  secret: 'replica-agent-secret-0123456789',
  scopes: ['mcp', 'skills:text'],
};

let idp: TestProvider;
let redis: RedisServer;
let cluster: ReplicaCluster;
beforeAll(async () => {
  idp = await startTestProvider([AGENT]);
  redis = await startRedisServer();
  cluster = await startReplicaCluster({
    redisUrl: redis.url,
    config: {
      auth: {
        oauth: {
          issuer: idp.issuer,
          audience: AUDIENCE,
          required_scopes: ['mcp'],
          grants: [{ scope: 'skills:text', skills: ['text-stats'] }],
        },
      },
      rate_limit: { requests_per_second: 0 },
    },
  });
});
afterAll(async () => {
  await cluster?.close();
  await redis?.close();
  await idp?.close();
});

describe('OAuth on every replica', () => {
  it('one token serves a 2025-era session across round-robin replicas, and modern requests on each', async () => {
    const token = await idp.token(AGENT, { resource: AUDIENCE, scope: 'mcp skills:text' });
    // Through the balancer: the session's requests alternate between the two replicas, each verifying alone.
    const c = await connectClient(cluster.url, { token });
    try {
      expect(await toolNames(c.client)).toEqual(['skill_text-stats_get_info']);
      expect(textOf(await c.client.callTool({ name: 'skill_text-stats_get_info', arguments: {} }))).toContain(
        'stats',
      );
      const run = await c.client.callTool({
        name: 'skill_text-stats_run_stats_py',
        arguments: { stdin: 'a b\n' },
      });
      expect(run.isError).toBeFalsy();
    } finally {
      await c.close();
    }
    for (const replica of cluster.replicas) {
      const m = await connectV2(replica.url, { era: 'modern', token });
      try {
        expect((await m.client.listTools()).tools.map((t) => t.name)).toContain('skill_text-stats_get_info');
      } finally {
        await m.close();
      }
    }
  });
});
