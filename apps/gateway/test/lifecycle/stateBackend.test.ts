import { parseConfig } from '@skillgate/config';
import { createRedisConnection } from '@skillgate/state';
import { type RedisServer, startRedisServer, waitFor } from '@skillgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.js';
import { connectClient, REPO_ROOT, startTestGateway, toolNames } from '../helpers/testGateway.js';

// One replica on the Redis backend: its session store is the shared one, and /readyz follows Redis.
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => redis.close());

describe('state.backend: redis', () => {
  it('keeps the session and its unlocks in Redis and reports not ready while Redis is down', async () => {
    const prefix = 'gw-state-test:';
    const gw = await startTestGateway(
      { state: { backend: 'redis', key_prefix: prefix } },
      { ...process.env, SKILLGATE_REDIS_URL: redis.url },
    );
    const peek = createRedisConnection({ url: redis.url, keyPrefix: prefix });
    try {
      await waitFor(async () => (await fetch(`${gw.base}/readyz`)).status === 200, { what: 'ready' });
      const c = await connectClient(gw.url);
      await c.client.callTool({ name: 'skill_gateway-probe_get_info', arguments: {} });
      const unlocked = (names: string[]): boolean =>
        names.some((n) => n.startsWith('skill_gateway-probe_run_'));
      expect(unlocked(await toolNames(c.client))).toBe(true);
      const sessionId = c.transport.sessionId ?? '';
      expect(await peek.waitUntilReady(5000)).toBe(true);
      expect(await peek.run((r) => r.zrange(`${prefix}unlocked:${sessionId}`, '0', '-1'))).toEqual([
        'gateway-probe',
      ]);
      const stored = JSON.parse((await peek.run((r) => r.get(`${prefix}session:${sessionId}`))) ?? '{}');
      expect(stored).toMatchObject({
        id: sessionId,
        principal: 'anon',
        client: { name: 'skillgate-test' },
      });

      await redis.stop();
      await waitFor(async () => (await fetch(`${gw.base}/readyz`)).status === 503, { what: 'not ready' });
      expect((await fetch(`${gw.base}/healthz`)).status).toBe(200);
      await redis.start();
      await waitFor(async () => (await fetch(`${gw.base}/readyz`)).status === 200, {
        what: 'ready again',
        timeoutMs: 15_000,
      });
      // The same session, with its unlocks, once Redis is back.
      expect(unlocked(await toolNames(c.client))).toBe(true);
      await c.close();
    } finally {
      await peek.close();
      await gw.close();
    }
  });

  it('refuses to start without the Redis URL variable', async () => {
    const config = parseConfig(
      { state: { backend: 'redis', redis_url_env: 'NO_SUCH_REDIS_URL' } },
      { baseDir: REPO_ROOT },
    );
    await expect(createGateway(config, { env: {} })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      issues: [{ path: 'state.redis_url_env', message: expect.stringContaining('NO_SUCH_REDIS_URL') }],
    });
  });
});
